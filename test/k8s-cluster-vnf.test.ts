/**
 * Seed 000 part 2 end to end: Tacker's own kubernetes_vnf_package, its
 * kubernetes_mgmt.py mapped to the built-in cluster engine, instantiated with
 * the seed's private_registry_kubernetes_param_file.json against the private
 * registry VNF of part 1. The simulated masters run a real kube-apiserver
 * and etcd; the built kubectl, with the admin.conf kubeadm wrote on the
 * master, is the user's client.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sampleVariant } from '../samples/variant';
import { clusterOfVnf, clusterNodes } from '../common/db/repos/clusters';
import { connectSsh } from '../ssh';
import { VENV } from '../runtime/openstack/install';
import { readState } from './harness/state';
import { adminToken, call, eventually, onboard, opIdFrom, sim, temporalClient, waitOpState } from './support/api';
import { kubectlBin } from './support/kube-apiserver';
import { withProductStore } from './support/product-store';
import { killWorker, restartWorker } from './support/worker-control';
import { tackerSampleFiles, zipFiles } from './vnfpkg-fixtures';

const ROOT = path.resolve(__dirname, '..');
const SEED_PARAMS = JSON.parse(fs.readFileSync(path.join(ROOT, 'samples/private_registry_kubernetes_param_file.json'), 'utf8'));
const REGISTRY_PARAMS = JSON.parse(fs.readFileSync(path.join(ROOT, 'samples/private_registry_param_file.json'), 'utf8'));
const K8S_VNFD = 'b1db0ce7-ebca-1fb7-95ed-4840d70a1163';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-vnf-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
afterEach(async () => { await sim('DELETE', '/sim/ssh/faults'); });

let registry: string; // ip:5000 of the private registry VNF
let vnfdId: string;

const instance = async (id: string) => (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body;
async function task(id: string, name: string, body: unknown, want = 'COMPLETED', timeoutMs = 300_000): Promise<any> {
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/${name}`, body);
  expect([r.status, r.text.slice(0, 300)]).toEqual([202, '']);
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], timeoutMs);
  expect(op.error?.detail ?? op.operationState).toBe(want);
  return op;
}
async function retry(opId: string, want = 'COMPLETED'): Promise<any> {
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/retry`)).status).toBe(202);
  const op = await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], 300_000);
  expect(op.error?.detail ?? op.operationState).toBe(want);
  return op;
}

/** The seed's file with the registry of part 1 and a cluster CP of the simple flavour. */
function params(edit: (k: any) => void = () => undefined): any {
  const p = structuredClone(SEED_PARAMS);
  const k = p.additionalParams.k8s_cluster_installation_param;
  k.master_node.cluster_cp_name = 'masterNode_CP1';
  k.private_registry_connection_info[0].server = registry;
  k.private_registry_connection_info[0].hosts_string = `${registry.split(':')[0]} registry.example`;
  delete k.proxy; // the simulated apt has no proxy to go through; proxies are covered by the private registry tests
  k.vim_name = `kubernetes-vim-${Math.random().toString(36).slice(2, 8)}`;
  edit(k);
  return p;
}

const vnfcsOf = async (id: string, vdu: string) => ((await instance(id)).instantiatedVnfInfo.vnfcResourceInfo as any[]).filter((v) => v.vduId === vdu);
const serverAddress = async (serverId: string) => (await sim<any>('GET', `/sim/servers/${serverId}`)).sshAddress as string;

/** /etc/kubernetes/admin.conf of the master, as its operator would copy it (kubeadm made it from the product's CA). */
async function adminConf(masterServerId: string, file: string): Promise<string> {
  const s = await connectSsh({ host: await serverAddress(masterServerId), port: Number(readState().env.MGMT_SSH_PORT), username: 'ubuntu', password: 'ubuntu' }, { deadlineMs: 30_000 });
  try {
    fs.writeFileSync(file, (await s.run('cat /etc/kubernetes/admin.conf', { sudo: true })).stdout, { mode: 0o600 });
    return file;
  } finally {
    await s.close();
  }
}
function kubectl(kubeconfig: string, ...args: string[]): { ok: boolean; out: string } {
  try {
    return { ok: true, out: execFileSync(kubectlBin(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return { ok: false, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}
const readyNodes = (kubeconfig: string) => {
  const r = kubectl(kubeconfig, 'get', 'nodes', '-o', 'json');
  if (!r.ok) return undefined;
  return (JSON.parse(r.out).items as any[]).map((n) => ({ name: n.metadata.name, ready: n.status.conditions.find((c: any) => c.type === 'Ready')?.status }));
};

async function newInstance(): Promise<string> {
  return (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
}

beforeAll(async () => {
  // part 1: the private registry VNF, under a vnfdId of its own
  const reg = sampleVariant(path.join(ROOT, 'samples/private_registry_vnf'));
  expect((await onboard(reg.zip)).onboardingFailureDetails).toBeUndefined();
  const regId = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: reg.vnfdId })).body.id;
  await task(regId, 'instantiate', REGISTRY_PARAMS);
  const [vnfc] = (await instance(regId)).instantiatedVnfInfo.vnfcResourceInfo;
  registry = `${await serverAddress(vnfc.computeResource.resourceId)}:5000`;
  // part 2: Tacker's package as it is (Scripts/kubernetes_mgmt.py is a stand-in: the mapping names the built-in driver)
  const files = tackerSampleFiles('kubernetes_vnf_package');
  vnfdId = crypto.randomUUID();
  for (const p of Object.keys(files).filter((f) => f.endsWith('.yaml'))) files[p] = Buffer.from(files[p].toString().split(K8S_VNFD).join(vnfdId));
  expect((await onboard(zipFiles(files))).onboardingFailureDetails).toBeUndefined();
}, 600_000);

test("the seed's file as it is: 400 naming cluster_cp_name, which is not a port of flavour simple, and nothing is written", async () => {
  const id = await newInstance();
  const seed = structuredClone(SEED_PARAMS);
  delete seed.additionalParams.k8s_cluster_installation_param.proxy;
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, seed);
  expect(r.status).toBe(400);
  expect(r.body.detail).toContain('additionalParams.k8s_cluster_installation_param.master_node.cluster_cp_name: "vip_CP" is neither a CP of flavour simple nor a port of its BaseHOT (masterNode_CP1, workerNode_CP2)');
  expect((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?vnfInstanceId=${id}`)).body).toEqual([]);
  // other fields are named by their path too
  const bad = params((k) => { k.worker_node.ssh_cp_name = 'nope'; k.private_registry_connection_info[0].connection_type = '1'; });
  const r2 = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, bad);
  expect(r2.status).toBe(400);
  expect(r2.body.detail).toContain('additionalParams.k8s_cluster_installation_param.private_registry_connection_info[0].certificate_path: is required for connection_type 1');
});

describe('a 1-master, 2-worker cluster', () => {
  let id: string;
  let conf: string;

  beforeAll(async () => {
    id = await newInstance();
    await task(id, 'instantiate', params(), 'COMPLETED', 600_000);
    const [master] = await vnfcsOf(id, 'masterNode');
    conf = await adminConf(master.computeResource.resourceId, path.join(work, 'admin.conf'));
  }, 700_000);

  test('kubectl with the admin.conf from the master sees 3 Ready nodes; every node is set up for the private registry once', async () => {
    const nodes = await eventually('3 Ready nodes', async () => { const n = readyNodes(conf); return n?.length === 3 && n.every((x) => x.ready === 'True') ? n : undefined; });
    expect(nodes.map((n) => n.name).sort()).toEqual(((await withProductStore(async (s) => clusterNodes(s, (await clusterOfVnf(s, id))!.id)))).map((n) => n.name).sort());
    for (const v of [...await vnfcsOf(id, 'masterNode'), ...await vnfcsOf(id, 'workerNode')]) {
      const host = await sim<any>('GET', `/sim/servers/${v.computeResource.resourceId}/host`);
      expect(host.files.map((f: any) => f.path)).toContain(`/etc/containerd/certs.d/${registry}/hosts.toml`);
      expect(host.commands.some((c: any) => /kubeadm (init|join) --config/.test(c.command) && c.exitCode === 0)).toBe(true);
    }
  });

  test('health: HEALTHY, then UNHEALTHY naming the node whose server stopped, HEALTHY again when it is back', async () => {
    const health = async () => (await withProductStore((st) => clusterOfVnf(st, id)))!;
    await eventually('HEALTHY', async () => ((await health()).healthStatus === 'HEALTHY' ? true : undefined), 60_000);
    expect((await health()).healthStatusReason).toMatchObject({ api: 'ok' });
    const [worker] = await vnfcsOf(id, 'workerNode');
    const serverId = worker.computeResource.resourceId;
    const nova = async (action: string) => {
      const r = await fetch(`${readState().vimsimUrl}/compute/v2.1/servers/${serverId}/action`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-auth-token': await adminToken() }, body: JSON.stringify({ [action]: null }),
      });
      expect(r.status).toBe(202);
    };
    await nova('os-stop');
    const down = await eventually('UNHEALTHY', async () => { const c = await health(); return c.healthStatus === 'UNHEALTHY' ? c : undefined; }, 90_000);
    const nodeName = (await withProductStore((st) => clusterNodes(st, down.id))).find((n) => n.serverId === serverId)!.name;
    expect(down.healthStatusReason?.[`${nodeName}.Ready`]).not.toBe('True');
    await nova('os-start');
    await eventually('HEALTHY again', async () => ((await health()).healthStatus === 'HEALTHY' ? true : undefined), 90_000);
  });

  test('the cluster is registered as a Kubernetes VIM (openstack vim list/show); no token or password is shown or on a command line', async () => {
    const inst = await instance(id);
    const k8sVci = inst.vimConnectionInfo.find((v: any) => v.vimType === 'kubernetes');
    expect(k8sVci).toBeDefined();
    const vim = (await call('GET', `/v1.0/vims/${k8sVci.vimId}`)).body.vim;
    expect(vim).toMatchObject({ type: 'kubernetes', auth_url: expect.stringMatching(/^https:\/\/127\.\d+\.\d+\.\d+:6443$/) });
    expect(JSON.stringify(vim)).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}/); // no JWT
    // the stock CLI, as the admin whose project the instance is in
    const env = { PATH: process.env.PATH, HOME: work, OS_AUTH_URL: readState().keystoneUrl, OS_USERNAME: 'admin', OS_PASSWORD: 'devstack', OS_PROJECT_NAME: 'admin', OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_IDENTITY_API_VERSION: '3' };
    const cli = (...args: string[]) => JSON.parse(execFileSync(path.join(VENV, 'bin', 'openstack'), [...args, '-f', 'json'], { env, encoding: 'utf8', timeout: 120_000 }));
    expect(cli('vim', 'list').map((v: any) => v.Name)).toContain(vim.name);
    const shown = cli('vim', 'show', vim.id);
    expect(shown.type).toBe('kubernetes');
    expect(JSON.stringify(shown)).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}/);
    // no node ever saw a bootstrap token, a registry password or a login password as a program argument
    for (const v of [...await vnfcsOf(id, 'masterNode'), ...await vnfcsOf(id, 'workerNode')]) {
      const host = await sim<any>('GET', `/sim/servers/${v.computeResource.resourceId}/host`);
      expect(host.programs.length).toBeGreaterThan(20); // positive control: the record has the install's programs
      expect(host.programs.filter((p: any) => /--token|--discovery-token|--password|docker login/.test(p.argv))).toEqual([]);
    }
  });

  test('scale out adds a Ready worker; scale in cordons, drains and deletes its Node before Heat removes the server', async () => {
    await task(id, 'scale', { type: 'SCALE_OUT', aspectId: 'worker_instance', numberOfSteps: 1 });
    await eventually('4 Ready nodes', async () => { const n = readyNodes(conf); return n?.length === 4 && n.every((x) => x.ready === 'True') ? n : undefined; });
    const before = readyNodes(conf)!.map((n) => n.name);
    const op = await task(id, 'scale', { type: 'SCALE_IN', aspectId: 'worker_instance', numberOfSteps: 1 });
    const after = readyNodes(conf)!.map((n) => n.name);
    expect(after).toHaveLength(3);
    const removed = before.filter((n) => !after.includes(n));
    expect(removed).toHaveLength(1);
    // the scale_start child ran the removal steps in order
    const history = await (await temporalClient()).workflow.getHandle(`${op.id}-scale_start`).fetchHistory();
    const steps = (history.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'removeNodeStep'
      ? [JSON.parse(Buffer.from(e.activityTaskScheduledEventAttributes.input!.payloads![0].data!).toString()).step] : []);
    expect([...new Set(steps)]).toEqual(['cordon', 'drain', 'delete the Node of', 'kubeadm reset on']);
  });

  test('heal of a worker: its Node goes, the new server joins under the same name', async () => {
    const [worker] = await vnfcsOf(id, 'workerNode');
    await task(id, 'heal', { vnfcInstanceId: [worker.id] });
    const [healed] = (await vnfcsOf(id, 'workerNode')).filter((v) => v.id === worker.id);
    expect(healed.computeResource.resourceId).not.toBe(worker.computeResource.resourceId);
    await eventually('3 Ready nodes after the heal', async () => { const n = readyNodes(conf); return n?.length === 3 && n.every((x) => x.ready === 'True') ? n : undefined; });
  });

  test('CA rotation: the old admin.conf is refused, the new one sees every node Ready', async () => {
    const cluster = (await withProductStore((s) => clusterOfVnf(s, id)))!;
    const client = await temporalClient();
    await client.workflow.execute('rotateClusterCa', { taskQueue: readState().env.TASK_QUEUE, workflowId: `rotate-ca-${cluster.id}`, args: [{ clusterId: cluster.id }], workflowExecutionTimeout: '10m' });
    expect(kubectl(conf, 'get', 'nodes').ok).toBe(false);
    const [master] = await vnfcsOf(id, 'masterNode');
    const fresh = await adminConf(master.computeResource.resourceId, path.join(work, 'admin-new.conf'));
    await eventually('3 Ready nodes with the new CA', async () => { const n = readyNodes(fresh); return n?.length === 3 && n.every((x) => x.ready === 'True') ? n : undefined; }, 120_000);
    conf = fresh;
  });

  test('terminate removes the cluster, its VIM and its PKI', async () => {
    const cluster = (await withProductStore((s) => clusterOfVnf(s, id)))!;
    await task(id, 'terminate', { terminationType: 'FORCEFUL' });
    expect(await withProductStore((s) => clusterOfVnf(s, id))).toBeUndefined();
    expect((await call('GET', `/v1.0/vims/${cluster.registeredVimId}`)).status).toBe(404);
  });
});

test('a fault at each install step parks the instantiate in FAILED_TEMP naming the step and the node; retries complete it, /etc/hosts gets its line once', async () => {
  const faults = [
    ['prepare', 'modprobe overlay'], ['container runtime', 'apt-get install -y containerd'], ['private registries', 'curl -sS -o /dev/null -w'],
    ['kubernetes packages', 'apt-get install -y --allow-change-held-packages kubelet'], ['kubeadm init', 'kubeadm init --config'], ['kubeadm join', 'kubeadm join --config'],
  ];
  // a command that fails is not retried on its own; a registry that does not answer may be starting, so its check is tried 3 times
  for (const [step, match] of faults) await sim('POST', '/sim/ssh/faults', { match, exitCode: 1, stderr: `injected failure of ${match}`, times: step === 'private registries' ? 3 : 1 });
  const id = await newInstance();
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, params());
  expect(r.status).toBe(202);
  const opId = opIdFrom(r);
  const seen: string[] = [];
  for (let i = 0; i < faults.length + 2; i++) {
    const op = await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], 300_000);
    if (op.operationState === 'COMPLETED') break;
    // nodes install side by side: one attempt may hit several faults, and the failure names each
    const steps = faults.filter(([s]) => op.error.detail.includes(`${s} on `)).map(([s]) => s);
    expect([op.error.detail, steps.length > 0]).toEqual([op.error.detail, true]);
    expect(op.error.detail).toMatch(/on (master|worker) [a-z0-9.-]+ \(127\.\d+\.\d+\.\d+\)/);
    expect(op.error.detail).toContain('injected failure');
    seen.push(...steps);
    expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/retry`)).status).toBe(202);
    await eventually('the retry to start', async () => ((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs/${opId}`)).body.operationState !== 'FAILED_TEMP' ? true : undefined));
  }
  expect((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs/${opId}`)).body.operationState).toBe('COMPLETED');
  expect(new Set(seen)).toEqual(new Set(faults.map(([s]) => s)));
  for (const v of await vnfcsOf(id, 'workerNode')) {
    const s = await connectSsh({ host: await serverAddress(v.computeResource.resourceId), port: Number(readState().env.MGMT_SSH_PORT), username: 'ubuntu', password: 'ubuntu' }, { deadlineMs: 30_000 });
    const hosts = (await s.run('cat /etc/hosts')).stdout;
    await s.close();
    expect(hosts.split('\n').filter((l) => l.trim() === `${registry.split(':')[0]} registry.example`)).toHaveLength(1);
  }
  await task(id, 'terminate', { terminationType: 'FORCEFUL' });
}, 900_000);

test('kill -9 of the worker mid-install: the instantiate completes with exactly 3 nodes', async () => {
  const id = await newInstance();
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, params());
  const opId = opIdFrom(r);
  // the install is under way once a node has a step done
  await eventually('a node step done', async () => {
    const c = await withProductStore((s) => clusterOfVnf(s, id));
    const n = c && await withProductStore((s) => clusterNodes(s, c.id));
    return n?.some((x) => x.doneSteps.length > 0) ? true : undefined;
  }, 300_000, 100);
  killWorker();
  restartWorker();
  const op = await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], 600_000);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const [master] = await vnfcsOf(id, 'masterNode');
  const conf = await adminConf(master.computeResource.resourceId, path.join(work, 'killed.conf'));
  expect(readyNodes(conf)).toHaveLength(3);
  expect((await instance(id)).instantiatedVnfInfo.vnfcResourceInfo).toHaveLength(3);
  await task(id, 'terminate', { terminationType: 'FORCEFUL' });
}, 900_000);
