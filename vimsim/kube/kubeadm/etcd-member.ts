/**
 * Stacked etcd membership as kubeadm v1.37 manages it: a joining control
 * plane is added as a learner through an existing member (found from the
 * etcd mirror pods' advertise-client-urls annotation), its etcd manifest
 * names every started member with `--initial-cluster-state=existing`, and it
 * is promoted once it has caught up; `kubeadm reset` on a control plane
 * removes its own member. kubeadm talks to etcd with the API server's etcd
 * client certificate.
 */
import type { MemFs } from '../../ssh/host/fs';
import type { KubeClient } from '../client';
import { EtcdClient, EtcdError, hexId, type EtcdTls } from '../etcd-client';
import type { Effective } from './config';
import { PhaseError } from './certs';
import { etcdPhase } from './manifests';

const ROOT = { name: 'root', uid: 0, home: '/root' };
const ANNOTATION = 'kubeadm.kubernetes.io/etcd.advertise-client-urls';
const JOIN_WAIT_MS = 40_000;
const ENDPOINTS_WAIT_MS = 40_000;

export function etcdClientTls(memfs: MemFs, certDir: string): EtcdTls {
  const read = (f: string) => memfs.readFile(`${certDir}/${f}`, ROOT).toString('utf8');
  return { ca: read('etcd/ca.crt'), cert: read('apiserver-etcd-client.crt'), key: read('apiserver-etcd-client.key') };
}

/**
 * The client URLs of the cluster's etcd members, from the etcd static pods' mirrors. As kubeadm does, the read is
 * tried again every 500 ms until `waitMs` (a mirror pod appears when its node's kubelet syncs, a moment after the
 * node's init or join returned; CI #46 met a join in that moment).
 */
export async function etcdEndpoints(client: Pick<KubeClient, 'get'>, waitMs = ENDPOINTS_WAIT_MS): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    let why: string;
    try {
      const pods = await client.get<{ items: { metadata: { annotations?: Record<string, string> } }[] }>('/api/v1/namespaces/kube-system/pods?labelSelector=component%3Detcd%2Ctier%3Dcontrol-plane');
      const urls = pods.items.flatMap((p) => (p.metadata.annotations?.[ANNOTATION] ?? '').split(',').filter(Boolean));
      if (urls.length) return [...new Set(urls)];
      why = pods.items.length ? 'etcd pods are missing their advertise-client-urls annotation' : 'no etcd pods are present';
    } catch (err) {
      why = (err as Error).message;
    }
    if (Date.now() >= deadline) throw new Error(`could not retrieve the list of etcd endpoints: ${why}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const peerUrl = (e: Effective) => `https://${e.advertiseAddress}:2380`;

/** The etcd-join phase: add as learner (or find the learner a retried join added), write the manifest, promote. */
export async function joinEtcd(memfs: MemFs, e: Effective, api: KubeClient, out: (l: string) => void): Promise<void> {
  const etcd = new EtcdClient(await etcdEndpoints(api).catch((err: Error) => { throw new PhaseError('etcd-join', err.message); }), etcdClientTls(memfs, e.cluster.certificatesDir));
  const peer = peerUrl(e);
  let members = await etcd.members().catch((err: Error) => { throw new PhaseError('etcd-join', `error creating local etcd static pod manifest file: etcdserver: ${err.message}`); });
  let mine = members.find((m) => m.peerURLs.includes(peer));
  if (mine) out(`[etcd] Found an existing member with peer URL ${peer} (id ${hexId(mine.ID)}); reusing it`);
  else {
    const added = await addLearner(etcd, peer);
    mine = added.member;
    members = added.members;
    out('[etcd] Announced new etcd member joining to the existing etcd cluster');
  }
  const initialCluster = members
    .map((m) => (m.ID === mine!.ID ? { ...m, name: e.nodeName } : m))
    .filter((m) => m.name)
    .map((m) => `${m.name}=${m.peerURLs[0]}`)
    .join(',');
  etcdPhase(memfs, e, out, initialCluster);
  if (!mine.isLearner && members.find((m) => m.ID === mine!.ID)?.isLearner !== true) return waitHealthy(etcd, e, out);
  out(`[etcd] Waiting for the new etcd member to join the cluster. This can take up to ${JOIN_WAIT_MS / 1000}s`);
  const deadline = Date.now() + JOIN_WAIT_MS;
  for (;;) {
    try {
      await etcd.promote(mine.ID);
      out(`[etcd] Promoted learner member ${hexId(mine.ID)} to voting member`);
      return waitHealthy(etcd, e, out);
    } catch (err) {
      // not started yet, or not caught up with the leader: kubeadm retries until its timeout
      if (Date.now() > deadline) throw new PhaseError('etcd-join', `error creating local etcd static pod manifest file: learner member ${hexId(mine.ID)} could not be promoted: ${(err as Error).message}`);
      if (err instanceof EtcdError && /can only promote a learner member$/.test(err.message)) return waitHealthy(etcd, e, out);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** etcd refuses a member while a recent one has not been connected long enough ("unhealthy cluster"): kubeadm retries. */
async function addLearner(etcd: EtcdClient, peer: string): Promise<Awaited<ReturnType<EtcdClient['add']>>> {
  const deadline = Date.now() + JOIN_WAIT_MS;
  for (;;) {
    try {
      return await etcd.add(peer, true);
    } catch (err) {
      if (Date.now() > deadline || !/unhealthy cluster|too many learner/.test((err as Error).message)) {
        throw new PhaseError('etcd-join', `error creating local etcd static pod manifest file: ${(err as Error).message}`);
      }
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function waitHealthy(etcd: EtcdClient, e: Effective, out: (l: string) => void): Promise<void> {
  const own = `https://${e.advertiseAddress}:2379`;
  const deadline = Date.now() + JOIN_WAIT_MS;
  while (!(await etcd.healthy(own))) {
    if (Date.now() > deadline) throw new PhaseError('etcd-join', `error creating local etcd static pod manifest file: timeout waiting for etcd cluster to be available`);
    await new Promise((r) => setTimeout(r, 500));
  }
  out(`[etcd] The etcd member at ${own} is healthy`);
}

/** reset's remove-etcd-member: this node's member leaves the cluster (a failure is a warning, as in kubeadm). */
export async function removeOwnEtcdMember(memfs: MemFs, certDir: string, advertiseAddress: string, api: KubeClient, out: (l: string) => void, warn: (l: string) => void): Promise<void> {
  try {
    const own = (u: string) => u.startsWith(`https://${advertiseAddress}:`);
    const all = await etcdEndpoints(api, 0); // one read: a reset goes on (with a warning) when the API does not answer
    const endpoints = [...all.filter((u) => !own(u)), ...all.filter(own)];
    const etcd = new EtcdClient(endpoints, etcdClientTls(memfs, certDir));
    const members = await etcd.members();
    const mine = members.find((m) => m.peerURLs.includes(`https://${advertiseAddress}:2380`));
    // the last member is left alone: the cluster goes with it
    if (!mine || members.length === 1) return;
    await etcd.remove(mine.ID);
    out(`[reset] Removed member ${hexId(mine.ID)} (${mine.name ?? advertiseAddress}) from the etcd cluster`);
  } catch (err) {
    warn(`[reset] Failed to remove etcd member: ${(err as Error).message}\n.Please manually remove this etcd member using etcdctl`);
  }
}
