/**
 * Package scripts (Vnflcm hook scripts, change_vnfpkg coordinate scripts) run
 * on the scripts worker, isolated: in namespaces of their own as a uid of
 * their own (when the tests run as root; test/component/script-sandbox.test.ts
 * has the sandbox's own tests), with a scrubbed environment, no access to
 * DATA_DIR or to the host's loopback services, limited in time, memory and
 * output, their output masked; the job travels sealed, so neither
 * the request's secrets nor the script reach the workflow history in
 * plaintext. The scripts worker dying mid-run does not wedge the op, and an
 * operator's cancel kills the script.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sampleVariant, twoVduVnfV2 } from '../../samples/variant';
import { readState } from '../harness/state';
import { call, eventually, onboard, opIdFrom, sim, temporalClient, waitOpState } from '../support/api';
import { keystoneUser } from '../support/identity';
import { processesWith, scriptJobDirsOf, scriptWritableFile } from '../support/scripts';
import { killWorker, restartWorker } from '../support/worker-control';
import { withLcmHooks } from '../support/vnfpkg-fixtures';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const DF = 'Definitions/two_vdu_vnf_df_simple.yaml';
const PW = 'hook-admin-pw-5c1e9f';
const BODY_MARKER = 'body-marker-6d1c2a'; // only in the script's bytes
const asRoot = process.getuid?.() === 0;
const SIM_MARKER = 'sim-fault-from-a-hook-3b7e';
/** A token request as the embedded cloud's admin, with its real password. */
const keystoneAdmin = (password: string) => JSON.stringify({ auth: {
  identity: { methods: ['password'], password: { user: { name: 'admin', domain: { id: 'default' }, password } } },
  scope: { project: { name: 'admin', domain: { id: 'default' } } },
} });
/** Who the scripts ran as: a uid of SCRIPTS_UIDS (default 200000-200999) as root, else the tests' own. */
const scriptUid = /uid=(\d+)/;
const expectScriptUid = (detail: string) => {
  const uid = Number(scriptUid.exec(detail)![1]);
  if (asRoot) expect(uid >= 200000 && uid <= 200999 ? 'in range' : uid).toBe('in range');
  else expect(uid).toBe(process.getuid!());
};
const runs = scriptWritableFile('script-runs-', 'runs');

/** One hook script for all cases, its behaviour chosen by additionalParams.mode (plain sh: no JSON parser). */
const hookScript = (s: { dataDir: string; keystoneUrl: string; temporalAddress: string; vimsimUrl: string; adminPassword: string }) => `#!/bin/sh
# ${BODY_MARKER}
in=$(cat)
case "$in" in
*'"mode":"isolation"'*)
  printf '%s' "$in" | grep -o '"admin_password":"[^"]*"' >&2
  echo '--- env' >&2; env >&2; echo '--- end' >&2
  cat "$DATA_DIR/secret.key" >&2
  cat '${s.dataDir}/secret.key' >&2
  echo "uid=$(id -u)" >&2
  # the host's loopback services, even with the embedded cloud's admin password
  curl -sS --max-time 5 -o /dev/null -H 'Content-Type: application/json' -d '${keystoneAdmin(s.adminPassword)}' '${s.keystoneUrl}/auth/tokens' 2>&1 | sed 's/^/keystone: /' >&2
  curl -sS --max-time 5 -o /dev/null 'http://${s.temporalAddress}/' 2>&1 | sed 's/^/temporal: /' >&2
  curl -sS --max-time 5 -o /dev/null -H 'Content-Type: application/json' -d '{"match":"${SIM_MARKER}"}' '${s.vimsimUrl}/sim/ssh/faults' 2>&1 | sed 's/^/sim: /' >&2
  exit 1 ;;
*'"mode":"flood"'*)
  head -c 10485760 /dev/zero | tr '\\0' a
  exit 0 ;;
*'"mode":"memory"'*)
  echo "as=$(ulimit -v)" >&2
  perl -e '$x = "a" x (2600 * 1024 * 1024); print "allocated\\n"'
  exit $? ;;
*'"mode":"crash"'*)
  echo run >> '${runs}'
  if [ "$(wc -l < '${runs}')" -lt 2 ]; then sleep 3589; fi # the first run waits to be killed
  exit 0 ;;
*'"mode":"hang"'*)
  sleep 3588 ;;
*'"mode":"wait"'*)
  sleep 3585 ;;
esac
exit 0
`;

/** The two-VDU sample with an instantiate_start hook bound to Scripts/h.sh. */
function hookPackage(script: Buffer, editYaml: (t: string) => string = (t) => t): { zip: Buffer; vnfdId: string } {
  return sampleVariant(SAMPLE, {
    editYaml: (p, t) => (p !== DF ? editYaml(t) : withLcmHooks(editYaml(t), ['instantiate_start'], '../Scripts/h.sh')),
    extraFiles: { 'Scripts/h.sh': script },
  });
}

let vnfdId: string;
beforeAll(async () => {
  const pkg = hookPackage(Buffer.from(hookScript(readState())));
  expect((await onboard(pkg.zip)).onboardingState).toBe('ONBOARDED');
  vnfdId = pkg.vnfdId;
});

async function instantiate(mode: string, id?: string, as: { vnfdId: string; headers: Record<string, string> } = { vnfdId, headers: {} }): Promise<string> {
  id ??= (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: as.vnfdId }, as.headers)).body.id;
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple',
    extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
    additionalParams: { mode, admin_password: PW },
  }, as.headers);
  expect(r.status).toBe(202);
  return opIdFrom(r);
}
const settled = (opId: string, ms = 90_000) => waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], ms);

/** Every string of a workflow's history, payloads decoded (their data is bytes: JSON in UTF-8). */
async function historyText(workflowId: string): Promise<string> {
  const client = await temporalClient();
  try {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const parts: string[] = [];
    const walk = (v: unknown): void => {
      if (v instanceof Uint8Array) parts.push(Buffer.from(v).toString('utf8'));
      else if (typeof v === 'string') parts.push(v);
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(history);
    return parts.join('\n');
  } finally {
    await client.connection.close();
  }
}

test('a hook script runs as its own uid, with a scrubbed env, no access to DATA_DIR or loopback services; its output is masked; no secret or key in op occ, logs or history', async () => {
  const { dataDir, logDir } = readState();
  const key = fs.readFileSync(path.join(dataDir, 'secret.key'), 'utf8').trim();
  expect(key.length).toBeGreaterThan(20);
  const opId = await instantiate('isolation');
  const op = await settled(opId);
  expect(op.operationState).toBe('FAILED_TEMP');
  const detail: string = op.error.detail;
  expect(detail).toMatch(/instantiate_start/);
  expect(detail).toMatch(/Scripts\/h\.sh exited 1/);

  // who it ran as, and what it could read (DATA_DIR is 0700, and under the host's /tmp, which it does not see)
  expectScriptUid(detail);
  if (asRoot) expect(detail).toMatch(new RegExp(`cat: ${dataDir}/secret\\.key: (Permission denied|No such file or directory)`));
  expect(detail).toContain('cat: /secret.key: No such file'); // no DATA_DIR in its environment

  // its environment: PATH, LANG, HOME and TMPDIR (its own private directory), and what sh adds
  const env = /--- env\n([\s\S]*?)\n--- end/.exec(detail)![1].split('\n').map((l) => l.split('=')[0]);
  expect(env.filter((n) => !['PATH', 'LANG', 'HOME', 'TMPDIR', 'PWD', 'SHLVL', '_', 'OLDPWD'].includes(n))).toEqual([]);
  if (asRoot) expect(/\nHOME=(.*)\n/.exec(detail)![1]).toBe('/tmp/job');

  // Keystone (even with the admin's password), Temporal's frontend, the simulator's /sim: none is there
  if (asRoot) {
    for (const service of ['keystone', 'temporal', 'sim']) expect(detail).toMatch(new RegExp(`${service}: curl: \\(7\\) Failed to connect`));
    expect(JSON.stringify(await sim('GET', '/sim/ssh/faults'))).not.toContain(SIM_MARKER);
  }

  // the request's secret was on its stdin, and is masked in what it printed
  expect(detail).toContain('"admin_password":"****"');

  const opText = (await call('GET', `/vnflcm/v1/vnf_lcm_op_occs/${opId}`)).text;
  const history = await historyText(opId);
  expect(history).toContain('sj1:'); // the sealed job, ...
  expect(history).not.toContain(BODY_MARKER); // ... the script's bytes only inside it
  const places: [string, string][] = [['op occ', opText], ['history', history],
    ...fs.readdirSync(logDir).map((f): [string, string] => [`log ${f}`, fs.readFileSync(path.join(logDir, f), 'utf8')])];
  for (const [where, text] of places) {
    expect([where, text.includes(key)]).toEqual([where, false]);
    expect([where, text.includes(PW)]).toEqual([where, false]);
  }
});

test('limits: 10 MiB on stdout kills the script cleanly; its address space is capped; a too-big script is refused naming it', async () => {
  const flood = await settled(await instantiate('flood'));
  expect(flood.operationState).toBe('FAILED_TEMP');
  expect(flood.error.detail).toMatch(/Scripts\/h\.sh wrote more than 64 KiB to stdout and was killed/);
  expect(flood.error.detail.length).toBeLessThan(3000);

  const memory = await settled(await instantiate('memory'));
  expect(memory.operationState).toBe('FAILED_TEMP');
  expect(memory.error.detail).toContain(`as=${2048 * 1024}`); // KiB, SCRIPTS_MEMORY_MB=2048
  expect(memory.error.detail).toMatch(/Out of memory/);

  // Temporal payloads are at most 2 MiB: a job that would not fit is refused before anything runs
  const big = hookPackage(Buffer.concat([Buffer.from('#!/bin/sh\nexit 0\n'), Buffer.alloc(2 * 1024 * 1024, '#')]));
  expect((await onboard(big.zip)).onboardingState).toBe('ONBOARDED');
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: big.vnfdId })).body.id;
  const tooBig = await settled(await instantiate('none', id));
  expect(tooBig.operationState).toBe('FAILED_TEMP');
  expect(tooBig.error.detail).toMatch(/hook instantiate_start: Scripts\/h\.sh: the script with its input is 2\.\d+ MiB .*at most 1\.50 MiB sealed can be handed to the scripts worker/);
});

test('the scripts worker killed -9 mid-run: the script dies with it, the hook is retried on a restarted scripts worker, the op completes', async () => {
  const opId = await instantiate('crash');
  await eventually('the script to run', async () => (processesWith('sleep 3589').length ? true : undefined), 60_000);
  const deadWorker = readState().pids['scripts-worker'];
  expect(scriptJobDirsOf(deadWorker)).toHaveLength(1);
  killWorker('scripts-worker');
  // the script's process group goes with its worker (parent-death signal)
  await eventually('the script to be gone', async () => (processesWith('sleep 3589').length === 0 ? true : undefined), 10_000);
  restartWorker('scripts-worker');
  const op = await settled(opId, 120_000);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  expect(fs.readFileSync(runs, 'utf8').trim().split('\n')).toHaveLength(2);
  expect(scriptJobDirsOf(deadWorker)).toEqual([]); // the dead worker's job directory was cleaned up by the new one
});

test('a FORCEFUL cancel kills the running script', async () => {
  const opId = await instantiate('hang');
  await eventually('the script to run', async () => (processesWith('sleep 3588').length ? true : undefined), 60_000);
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/cancel`, { cancelMode: 'FORCEFUL' })).status).toBe(202);
  expect((await settled(opId)).operationState).toBe('FAILED_TEMP');
  await eventually('the script to be killed', async () => (processesWith('sleep 3588').length === 0 ? true : undefined), 20_000);
});

test('each project runs at most SCRIPTS_PER_PROJECT (4) scripts at once: its fifth waits, another project\'s runs at once', async () => {
  const busy = await Promise.all(Array.from({ length: 5 }, () => instantiate('wait')));
  await eventually('four of them to run', async () => (processesWith('sleep 3585').length === 4 ? true : undefined), 60_000);
  // another project, its own package: its hook runs and its instantiate completes while the first project's fifth waits
  const other = await keystoneUser(`share-${Date.now().toString(36)}`, `share-member-${Date.now().toString(36)}`, 'member');
  const headers = await other.headers();
  const pkg = hookPackage(Buffer.from(hookScript(readState())));
  expect((await onboard(pkg.zip, headers)).onboardingState).toBe('ONBOARDED');
  const done = await waitOpState(await instantiate('none', undefined, { vnfdId: pkg.vnfdId, headers }), ['COMPLETED', 'FAILED_TEMP'], 120_000); // read as the cloud admin
  expect(done.error?.detail ?? done.operationState).toBe('COMPLETED');
  expect(processesWith('sleep 3585')).toHaveLength(4); // the fifth is still waiting for its project's turn
  // cancelled, waiting or running: every one ends, and nothing is left running
  for (const op of busy) expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${op}/cancel`, { cancelMode: 'FORCEFUL' })).status).toBe(202);
  for (const op of busy) expect((await settled(op)).operationState).toBe('FAILED_TEMP');
  await eventually('the scripts to be gone', async () => (processesWith('sleep 3585').length === 0 ? true : undefined), 20_000);
});

describe('coordinate scripts (change_vnfpkg)', () => {
  /** Reads the SSH banner of the VNFC it is about (its own instance's: reachable from the sandbox), then hangs. */
  const COORD = (sshPort: string) => `#!/bin/sh
in=$(cat)
ip=$(printf '%s' "$in" | sed -n 's/.*"ssh_ip":"\\([^"]*\\)".*/\\1/p')
banner=$(curl -s --max-time 2 "telnet://$ip:${sshPort}" </dev/null | head -c 7)
echo "banner=$banner" >&2
printf '%s' "$in" | grep -o '"password":"[^"]*"' >&2
echo "uid=$(id -u) home=$HOME" >&2
sleep 3587 &
sleep 3586
`;
  test('run on the scripts worker, reach their VNFC, masked; killed with what they started at their timeout', async () => {
    const v1 = sampleVariant(SAMPLE);
    const v2 = sampleVariant(SAMPLE, { editYaml: (_p, t) => twoVduVnfV2(t), extraFiles: { 'Scripts/coord.sh': Buffer.from(COORD(readState().env.MGMT_SSH_PORT!)) } });
    await onboard(v1.zip);
    await onboard(v2.zip);
    const id = (await call('POST', '/vnflcm/v2/vnf_instances', { vnfdId: v1.vnfdId }, { Version: '2.0.0' })).body.id;
    const inst = await call('POST', `/vnflcm/v2/vnf_instances/${id}/instantiate`, {
      flavourId: 'simple', instantiationLevelId: 'instantiation_level_1',
      extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
    }, { Version: '2.0.0' });
    expect((await waitOpState(opIdFrom(inst), ['COMPLETED', 'FAILED_TEMP'], 90_000, 'v2')).operationState).toBe('COMPLETED');
    const param = { cp_name: 'VDU1_CP1', username: 'ubuntu', password: 'vnfc-coord-pw-77a1', timeout: 4 };
    const r = await call('POST', `/vnflcm/v2/vnf_instances/${id}/change_vnfpkg`, {
      vnfdId: v2.vnfdId,
      additionalParams: {
        upgrade_type: 'RollingUpdate', 'lcm-operation-coordinate-new-vnf': 'Scripts/coord.sh',
        vdu_params: [{ vdu_id: 'VDU1', old_vnfc_param: param, new_vnfc_param: param }],
      },
    }, { Version: '2.0.0' });
    expect(r.status).toBe(202);
    const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP', 'ROLLED_BACK'], 120_000, 'v2');
    expect(op.operationState).toBe('FAILED_TEMP');
    expect(op.error.detail).toMatch(/coord\.sh did not finish within 4 s and was killed; its output ended: banner=SSH-2\.0\s+"password":"\*\*\*\*"/);
    expectScriptUid(op.error.detail);
    expect(op.error.detail).not.toContain('vnfc-coord-pw-77a1');
    await eventually('what it started to be gone', async () => (processesWith('sleep 358').some((p) => /sleep 358[67]/.test(p)) ? undefined : true), 10_000);
    // the script ran from the VNFC's child workflow (rollingChunk -> rollVnfc)
    const vnfcWorkflow = `${opIdFrom(r)}/update-0-1/update-VDU1-0`;
    const history = await historyText(vnfcWorkflow);
    expect(history).toContain('sj1:');
    expect(history).not.toContain('vnfc-coord-pw-77a1');
  });
});
