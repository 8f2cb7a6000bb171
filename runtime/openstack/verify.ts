/**
 * Manual end-to-end check of the embedded cloud (not part of jest): start,
 * create stacks, stop/start on the same dataDir, restartHeat(SIGKILL), a
 * create killed mid-way, other ports on the same dataDir, the operator CLI.
 *   DATA_DIR=/tmp/x KEYSTONE_PORT=15100 HEAT_PORT=15104 OCTAVIA_PORT=15176 npx tsx runtime/openstack/verify.ts
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { EmbeddedCloud, EmbeddedCloudOptions, startEmbeddedCloud } from './index';
import { venvBin } from './install';
import { sleep } from './procs';

const e = process.env;
const ksPort = Number(e.KEYSTONE_PORT ?? 15100);
const heatPort = Number(e.HEAT_PORT ?? 15104);
const octaviaPort = Number(e.OCTAVIA_PORT ?? 15176);
const base: EmbeddedCloudOptions = {
  dataDir: e.DATA_DIR ?? fs.mkdtempSync('/tmp/os-verify-'),
  keystonePort: ksPort,
  heatPort,
  octaviaPort,
  heatSleepScale: Number(e.HEAT_TASK_SLEEP_SCALE ?? 0.05),
  simulatorUrl: e.VIMSIM_URL ?? 'http://127.0.0.1:15191',
  apiUrl: e.API_URL ?? 'http://127.0.0.1:15190',
  log: (m) => console.log(`  [openstack] ${m}`),
};
const say = (m: string) => console.log(`== ${m}`);
let failures = 0;
const check = (ok: boolean, what: string) => (console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`), ok || failures++);

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m?.[1] ?? 0) / 1024);
}
function childrenOf(pid: number): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => {
    try {
      return Number(fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === pid;
    } catch {
      return false;
    }
  });
}

async function heatClient(c: EmbeddedCloud) {
  const r = await fetch(`${c.authUrl}/auth/tokens`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ auth: { identity: { methods: ['password'], password: { user: { name: 'admin', domain: { id: 'default' }, password: c.adminPassword } } }, scope: { project: { name: 'admin', domain: { id: 'default' } } } } }),
  });
  const token = r.headers.get('x-subject-token')!;
  const project = ((await r.json()) as any).token.project.id as string; // eslint-disable-line @typescript-eslint/no-explicit-any
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${c.heatUrl}/v1/${project}${path}`, {
      method, headers: { 'X-Auth-Token': token, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : {};
  };
  const create = async (name: string, resources: object) =>
    (await call('POST', '/stacks', { stack_name: name, disable_rollback: true, template: { heat_template_version: '2018-08-31', resources } })).stack.id as string;
  const show = async (name: string, id: string) => (await call('GET', `/stacks/${name}/${id}`)).stack as { stack_status: string; stack_status_reason: string };
  const waitFor = async (name: string, id: string, done: (s: string) => boolean, ms = 60_000) => {
    const t0 = Date.now();
    for (;;) {
      const s = await show(name, id);
      if (done(s.stack_status) || Date.now() - t0 > ms) return { ...s, secs: (Date.now() - t0) / 1000 };
      await sleep(200);
    }
  };
  const names = async () => ((await call('GET', '/stacks')).stacks as { stack_name: string }[]).map((s) => s.stack_name);
  return { call, create, show, waitFor, names };
}

function cli(c: EmbeddedCloud, ...args: string[]): string {
  const auth = ['--os-auth-url', c.authUrl, '--os-username', 'admin', '--os-password', c.adminPassword, '--os-project-name', 'admin',
    '--os-user-domain-name', 'Default', '--os-project-domain-name', 'Default'];
  const r = spawnSync(venvBin('openstack'), [...auth, ...args, '-f', 'value'], { encoding: 'utf8' });
  return r.stdout + (r.status ? `(exit ${r.status}) ${r.stderr}` : '');
}

async function main(): Promise<void> {
  say(`first start on ${base.dataDir}`);
  let c = await startEmbeddedCloud(base);
  const kw = childrenOf(c.keystonePid);
  console.log(`RSS MB: keystone master ${rssMb(c.keystonePid)} + worker ${kw.map(rssMb).join('+')}, heat ${rssMb(c.heatPid)}, octavia ${rssMb(c.octaviaPid)}`);
  let h = await heatClient(c);
  const quick = { none: { type: 'OS::Heat::None' }, test: { type: 'OS::Heat::TestResource', properties: { value: 'hi' } } };
  let t0 = Date.now();
  const id1 = await h.create('s-none', quick);
  const s1 = await h.waitFor('s-none', id1, (s) => !s.endsWith('IN_PROGRESS'));
  check(s1.stack_status === 'CREATE_COMPLETE', `s-none ${s1.stack_status} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  check(/s-none/.test(cli(c, 'stack', 'list', '-c', 'Stack Name')), 'openstack stack list shows s-none');
  const types = cli(c, 'catalog', 'list', '-c', 'Type').trim().split('\n').sort();
  check(types.length === 9, `openstack catalog list: ${types.join(' ')}`);
  check(cli(c, 'loadbalancer', 'provider', 'list', '-c', 'name').trim() === 'vimsim', 'openstack loadbalancer provider list: vimsim');

  say('stop + start on the same dataDir');
  t0 = Date.now();
  await c.stop();
  console.log(`stop(): ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  c = await startEmbeddedCloud(base);
  h = await heatClient(c);
  check((await h.names()).includes('s-none'), 's-none still listed after restart');

  say('restartHeat() with SIGKILL');
  t0 = Date.now();
  await c.restartHeat();
  console.log(`restartHeat: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  check((await h.names()).includes('s-none'), 's-none listed after restartHeat');

  say('a create killed mid-way');
  const slow = { wait: { type: 'OS::Heat::TestResource', properties: { value: 'slow', action_wait_secs: { create: 600 } } } };
  const id2 = await h.create('s-slow', slow);
  await h.waitFor('s-slow', id2, (s) => s === 'CREATE_IN_PROGRESS');
  await sleep(2000);
  await c.restartHeat({ signal: 'SIGKILL' });
  const s2 = await h.waitFor('s-slow', id2, (s) => !s.endsWith('IN_PROGRESS'), 30_000);
  check(s2.stack_status === 'CREATE_FAILED', `s-slow after restart: ${s2.stack_status} "${s2.stack_status_reason}" (${s2.secs.toFixed(1)} s)`);
  const res = (await h.call('GET', `/stacks/s-slow/${id2}/resources`)).resources as { resource_status: string; resource_status_reason: string }[];
  console.log(`     resource: ${res.map((r) => `${r.resource_status} "${r.resource_status_reason}"`).join('; ')}`);
  await h.call('DELETE', `/stacks/s-slow/${id2}`);
  const s3 = await h.waitFor('s-slow', id2, (s) => !s.endsWith('IN_PROGRESS'), 60_000).catch((err: Error) => ({ stack_status: `gone (${err.message.slice(0, 40)})`, stack_status_reason: '' }));
  check(/DELETE_COMPLETE|gone/.test(s3.stack_status), `s-slow delete after restart: ${s3.stack_status}`);

  say('Heat dies on its own');
  let died = '';
  await c.stop();
  c = await startEmbeddedCloud({ ...base, onUnexpectedExit: (n, code, sig) => (died = `${n} ${code} ${sig}`) });
  process.kill(c.heatPid, 'SIGKILL');
  await sleep(500);
  check(died === 'heat null SIGKILL', `onUnexpectedExit reported: ${died}`);
  await c.stop();

  say('other ports on the same dataDir');
  c = await startEmbeddedCloud({ ...base, keystonePort: ksPort + 10, heatPort: heatPort + 10, octaviaPort: octaviaPort + 10 });
  const eps = cli(c, 'endpoint', 'list', '-c', 'Service Type', '-c', 'URL').trim().split('\n');
  check(eps.length === 27, `27 endpoints after a port change (${eps.length})`);
  check(eps.filter((x) => x.includes(`:${octaviaPort + 10}`)).length === 3, 'load-balancer endpoints follow the new port');
  check(eps.filter((x) => x.includes(`:${heatPort + 10}/`)).length === 3 && eps.filter((x) => x.includes(`:${ksPort + 10}/`)).length === 3, 'identity + orchestration endpoints follow the new ports');
  check(/s-none/.test(cli(c, 'stack', 'list', '-c', 'Stack Name')), 'openstack stack list via the moved catalog');
  await c.stop();
  const gone = [c.keystonePid, c.heatPid, c.octaviaPid].every((p) => !fs.existsSync(`/proc/${p}`));
  check(gone, 'all stopped');
  console.log(`${failures ? 'FAILED' : 'all good'} (${failures} failures); state in ${base.dataDir}`);
  process.exit(failures ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
