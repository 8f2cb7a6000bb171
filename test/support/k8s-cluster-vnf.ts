/**
 * Seed 000 part 2's fixtures, shared by test/e2e/k8s-cluster-vnf.test.ts and
 * test/disruptive/k8s-cluster-vnf-faults.test.ts: the private registry VNF of
 * part 1, Tacker's kubernetes_vnf_package onboarded under a vnfdId of its own,
 * the seed's parameter file pointed at that registry, and the user's kubectl
 * with the admin.conf kubeadm wrote on the master. Module state is per test
 * file (jest's module registry).
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sampleVariant } from '../../samples/variant';
import { connectSsh } from '../../ssh';
import { readState } from '../harness/state';
import { call, eventually, onboard, opIdFrom, sim, waitOpState } from './api';
import { kubectlBin } from './kube-apiserver';
import { tackerSampleFiles, zipFiles } from './vnfpkg-fixtures';

const ROOT = path.resolve(__dirname, '../..');
export const SEED_PARAMS = JSON.parse(fs.readFileSync(path.join(ROOT, 'samples/private_registry_kubernetes_param_file.json'), 'utf8'));
const REGISTRY_PARAMS = JSON.parse(fs.readFileSync(path.join(ROOT, 'samples/private_registry_param_file.json'), 'utf8'));
const K8S_VNFD = 'b1db0ce7-ebca-1fb7-95ed-4840d70a1163';
export const work = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-vnf-'));

/** ip:5000 of the private registry VNF (set by onboardRegistryAndPackage). */
export let registry: string;
let vnfdId: string;

export const instance = async (id: string) => (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body;
export async function task(id: string, name: string, body: unknown, want = 'COMPLETED', timeoutMs = 300_000): Promise<any> {
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/${name}`, body);
  expect([r.status, r.text.slice(0, 300)]).toEqual([202, '']);
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], timeoutMs);
  expect(op.error?.detail ?? op.operationState).toBe(want);
  return op;
}

/** The seed's file with the registry of part 1 and a cluster CP of the simple flavour. */
export function params(edit: (k: any) => void = () => undefined): any {
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

export const vnfcsOf = async (id: string, vdu: string) => ((await instance(id)).instantiatedVnfInfo.vnfcResourceInfo as any[]).filter((v) => v.vduId === vdu);
export const serverAddress = async (serverId: string) => (await sim<any>('GET', `/sim/servers/${serverId}`)).sshAddress as string;

/** /etc/kubernetes/admin.conf of the master, as its operator would copy it (kubeadm made it from the product's CA). */
export async function adminConf(masterServerId: string, file: string): Promise<string> {
  const s = await connectSsh({ host: await serverAddress(masterServerId), port: Number(readState().env.MGMT_SSH_PORT), username: 'ubuntu', password: 'ubuntu' }, { deadlineMs: 30_000 });
  try {
    fs.writeFileSync(file, (await s.run('cat /etc/kubernetes/admin.conf', { sudo: true })).stdout, { mode: 0o600 });
    return file;
  } finally {
    await s.close();
  }
}
export function kubectl(kubeconfig: string, ...args: string[]): { ok: boolean; out: string } {
  try {
    return { ok: true, out: execFileSync(kubectlBin(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return { ok: false, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}
export const readyNodes = (kubeconfig: string) => {
  const r = kubectl(kubeconfig, 'get', 'nodes', '-o', 'json');
  if (!r.ok) return undefined;
  return (JSON.parse(r.out).items as any[]).map((n) => ({ name: n.metadata.name, ready: n.status.conditions.find((c: any) => c.type === 'Ready')?.status }));
};

/** Waits until the cluster has exactly `count` nodes, every one Ready; answers them. */
export function untilReadyNodes(kubeconfig: string, count: number, what: string, timeoutMs: number) {
  return eventually(what, async () => {
    const n = readyNodes(kubeconfig);
    return n?.length === count && n.every((x) => x.ready === 'True') ? n : undefined;
  }, timeoutMs, 1000);
}

export async function newInstance(): Promise<string> {
  return (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
}

/** Part 1, the private registry VNF instantiated, and part 2's package onboarded (a vnfdId of its own per file). */
export async function onboardRegistryAndPackage(): Promise<void> {
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
}
