/**
 * Cluster benchmark: `npx tsx bench/cluster.ts` (or `npm run bench:cluster`).
 *
 * One product (Temporal dev server, the embedded cloud with its machines:
 * SSH on every server and a real kube-apiserver + etcd on every master, a
 * worker and the API), in one run:
 *  (b) Tacker's Kubernetes cluster VNF instantiated, 1 master + 2 workers,
 *      through the API, to COMPLETED; and the cluster engine's own part, its
 *      instantiate_end child (kubernetesInstantiateEnd), from its history;
 *  (a) a bare workflow of as many no-op activities as that child scheduled,
 *      in sequence: the floor of dispatching them through Temporal;
 *  then scale out by one worker at a time (BENCH_SCALE_STEPS): seconds per
 *  added worker; and the RSS of each simulated control plane (its
 *  kube-apiserver and etcd processes). With BENCH_FLAVOUR=complex the
 *  clusters are Tacker's HA flavour (3 masters behind a VIP, 2 workers, on a
 *  net0 made here) and the run also stops the VIP's master of the first
 *  cluster: how long /healthz through the VIP goes unanswered. Prints a
 *  table, writes bench/results/cluster[-complex]-latest.json. See docs/benchmarks.md.
 * Env: BENCH_RUNS (3), BENCH_SCALE_STEPS (2), BENCH_FLAVOUR (simple), BENCH_HEAT_SLEEP_SCALE (1), BENCH_HEAT_POLL_MS (50).
 */
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { tackerSampleFiles } from '../test/support/vnfpkg-fixtures';
import { zipFiles } from '../samples/build';
import { Api } from './api';
import { baselineOperation, withBaselineWorker } from './baseline';
import { historyStats, workflowTimes } from './history';
import { latency, percentile } from './measure';
import { rssMiB } from './procs';
import { startProduct } from './product';

const RUNS = Number(process.env.BENCH_RUNS || '3');
const SCALE_STEPS = Number(process.env.BENCH_SCALE_STEPS || '2');
const FLAVOUR = process.env.BENCH_FLAVOUR || 'simple';
const HA = FLAVOUR !== 'simple';
const SHAPE = HA ? '3 masters + 2 workers' : '1 master + 2 workers';
const RESULTS = path.join(__dirname, 'results', HA ? `cluster-${FLAVOUR}-latest.json` : 'cluster-latest.json');
const K8S_VNFD = 'b1db0ce7-ebca-1fb7-95ed-4840d70a1163';
const SEED = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../samples/private_registry_kubernetes_param_file.json'), 'utf8'));
const log = (m: string) => console.log(`[bench] ${new Date().toISOString().slice(11, 19)} ${m}`);
const ms = (n: number) => Math.round(n);

/** The seed's parameter file (its vip_CP for the HA flavours), without a registry or proxy (the registry VNF is the private-registry benchmark's business). */
function params(): unknown {
  const p = structuredClone(SEED);
  const k = p.additionalParams.k8s_cluster_installation_param;
  p.flavourId = FLAVOUR;
  if (!HA) k.master_node.cluster_cp_name = 'masterNode_CP1';
  delete k.private_registry_connection_info;
  delete k.proxy;
  k.vim_name = `bench-${crypto.randomUUID().slice(0, 8)}`;
  return p;
}

/** RSS of every simulated control plane: its master's address -> kube-apiserver and etcd MiB. */
export function controlPlanes(): Record<string, { apiserver: number; etcd: number }> {
  const out: Record<string, { apiserver: number; etcd: number }> = {};
  const ps = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  for (const line of ps) {
    const m = /^\s*(\d+)\s+(\S*(kube-apiserver|etcd)(?:-v[\d.]+)?)\s(.*)$/.exec(line);
    if (!m) continue;
    const addr = /--advertise-address=(127\.[\d.]+)/.exec(m[4])?.[1] ?? /--listen-client-urls[= ]https?:\/\/(127\.[\d.]+):2379/.exec(m[4])?.[1];
    if (!addr) continue;
    const entry = (out[addr] ??= { apiserver: 0, etcd: 0 });
    entry[m[3] === 'etcd' ? 'etcd' : 'apiserver'] += rssMiB(Number(m[1]));
  }
  return out;
}

/**
 * Stops the master holding the first cluster's VIP and watches /healthz through the VIP every 100 ms
 * (any answer of the API server counts: the caller has no certificate): the longest gap, and when the VIP moved.
 */
async function vipFailover(api: Api, vimsim: string, instanceId: string): Promise<{ longestGapMs: number; movedAfterMs: number }> {
  const inst = await api.instance(instanceId);
  const masters = (inst.instantiatedVnfInfo.vnfcResourceInfo as { vduId: string; computeResource: { resourceId: string } }[]).filter((v) => v.vduId === 'masterNode').map((v) => v.computeResource.resourceId);
  const holderOf = async (): Promise<{ server: string; vip: string } | undefined> => {
    for (const m of masters) {
      const held = ((await api.cloud(`GET`, `${vimsim}/sim/servers/${m}/lb`).catch(() => ({ heldVips: [] }))).heldVips ?? []) as string[];
      if (held.length) return { server: m, vip: held[0] };
    }
    return undefined;
  };
  const first = await holderOf();
  if (!first) throw new Error('no master holds the VIP');
  const answers = () => new Promise<boolean>((resolve) => {
    const req = https.get({ host: first.vip, port: 16443, path: '/healthz', rejectUnauthorized: false, timeout: 1000 }, (res) => { res.resume(); resolve(true); });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
  let polling = true;
  let lastOk = performance.now();
  let longestGapMs = 0;
  const poller = (async () => {
    while (polling) {
      if (await answers()) {
        longestGapMs = Math.max(longestGapMs, performance.now() - lastOk);
        lastOk = performance.now();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await api.cloud('POST', `${vimsim}/compute/v2.1/servers/${first.server}/action`, { 'os-stop': null });
  let stoppedAt = 0;
  for (let i = 0; i < 300 && !stoppedAt; i++) {
    if ((await api.cloud('GET', `${vimsim}/compute/v2.1/servers/${first.server}`)).server.status === 'SHUTOFF') stoppedAt = performance.now();
    else await new Promise((r) => setTimeout(r, 50));
  }
  let movedAfterMs = -1;
  for (let i = 0; i < 600 && movedAfterMs < 0; i++) {
    const h = await holderOf();
    if (h && h.server !== first.server) movedAfterMs = performance.now() - stoppedAt;
    else await new Promise((r) => setTimeout(r, 50));
  }
  const settled = performance.now();
  while (lastOk < settled + 2000 && performance.now() < settled + 30_000) await new Promise((r) => setTimeout(r, 100));
  polling = false;
  await poller;
  await api.cloud('POST', `${vimsim}/compute/v2.1/servers/${first.server}/action`, { 'os-start': null });
  return { longestGapMs: ms(longestGapMs), movedAfterMs: ms(movedAfterMs) };
}

async function main() {
  log('starting the product with its machines (SSH, Kubernetes control planes)');
  const product = await startProduct({ machines: true });
  const api = new Api(product.apiUrl, product.admin);
  const connection = await Connection.connect({ address: product.temporalAddress });
  const client = new Client({ connection });
  try {
    const files = tackerSampleFiles('kubernetes_vnf_package');
    const vnfdId = crypto.randomUUID();
    for (const p of Object.keys(files).filter((f) => f.endsWith('.yaml'))) files[p] = Buffer.from(files[p].toString().split(K8S_VNFD).join(vnfdId));
    await api.onboard(zipFiles(files));
    if (HA) {
      // the operator's net0, where the BaseHOT's vip_CP lives
      const net = await api.cloud('POST', `${product.vimsimUrl}/network/v2.0/networks`, { network: { name: 'net0' } });
      await api.cloud('POST', `${product.vimsimUrl}/network/v2.0/subnets`, { subnet: { network_id: net.network.id, cidr: '127.24.0.0/16', ip_version: 4 } });
    }
    const instances: string[] = [];
    const create = {
      prepare: () => api.createInstance(vnfdId),
      run: async (id: string) => {
        instances.push(id);
        const opOccId = await api.task(id, 'instantiate', params());
        const state = await client.workflow.getHandle(opOccId).result();
        if (state !== 'COMPLETED') throw new Error(`instantiate ${opOccId} ended ${state}`);
        return opOccId;
      },
    };
    log(`cluster create (${SHAPE}), ${RUNS} runs`);
    const b = await latency(create, 0, RUNS);
    const engine = await Promise.all(b.workflowIds.map((id) => historyStats(client, `${id}-instantiate_end`)));
    const engineSpans = await Promise.all(b.workflowIds.map((id) => workflowTimes(client, `${id}-instantiate_end`)));
    const controlPlaneRss = controlPlanes();
    const activities = Math.round(engine.reduce((a, s) => a + s.activities, 0) / engine.length);
    log(`floor: a bare workflow of ${activities} no-op activities, ${RUNS} runs`);
    const a = await withBaselineWorker(product.temporalAddress, () => latency(baselineOperation(client, activities), 1, RUNS));

    log(`scale out, ${SCALE_STEPS} times one worker`);
    const scaleMs: number[] = [];
    for (let i = 0; i < SCALE_STEPS; i++) {
      const t0 = performance.now();
      const opOccId = await api.task(instances[0], 'scale', { type: 'SCALE_OUT', aspectId: 'worker_instance', numberOfSteps: 1 });
      const state = await client.workflow.getHandle(opOccId).result();
      if (state !== 'COMPLETED') throw new Error(`scale ${opOccId} ended ${state}`);
      scaleMs.push(performance.now() - t0);
    }
    const failover = HA ? await vipFailover(api, product.vimsimUrl, instances[0]) : undefined;
    const engineMs = engine.map((s) => s.totalMs);
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, loadavg: os.loadavg(), heatSleepScale: product.heatSleepScale },
      create: { medianMs: ms(b.medianMs), minMs: ms(b.minMs), maxMs: ms(b.maxMs), samplesMs: b.samplesMs.map(ms) },
      engine: { medianMs: ms(percentile(engineMs, 50)), outsideActivitiesMedianMs: ms(percentile(engineSpans.map((x) => x.outsideActivitiesMs), 50)), activities, workflowTasks: engine[0]?.workflowTasks, timers: engine[0]?.timers, activityTypes: engine[0]?.activityTypes },
      floor: { medianMs: ms(a.medianMs), minMs: ms(a.minMs), maxMs: ms(a.maxMs) },
      ratios: { engineOverFloor: Math.round((percentile(engineMs, 50) / a.medianMs) * 100) / 100 },
      scaleOut: { perWorkerMs: scaleMs.map(ms), medianMs: ms(percentile(scaleMs, 50)) },
      controlPlaneRssMiB: controlPlaneRss,
      ...(failover ? { vipFailover: failover } : {}),
    };
    fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
    fs.writeFileSync(RESULTS, JSON.stringify(result, null, 2));
    console.log();
    console.log(`cluster create (instantiate, ${SHAPE}): median ${result.create.medianMs} ms (${result.create.minMs}..${result.create.maxMs}) over ${RUNS}`);
    console.log(`  of it the cluster engine (instantiate_end child): median ${result.engine.medianMs} ms, ${activities} activities, ${result.engine.timers} timers`);
    console.log(`  of that, no activity running (the engine's own time over the same activities): median ${result.engine.outsideActivitiesMedianMs} ms`);
    console.log(`  floor, ${activities} no-op activities in sequence: median ${result.floor.medianMs} ms -> engine/floor ${result.ratios.engineOverFloor}`);
    console.log(`scale out by one worker: ${result.scaleOut.perWorkerMs.join(', ')} ms (median ${result.scaleOut.medianMs})`);
    for (const [addr, r] of Object.entries(controlPlaneRss)) console.log(`control plane ${addr}: kube-apiserver ${r.apiserver} MiB, etcd ${r.etcd} MiB`);
    if (failover) console.log(`VIP failover (its master stopped): /healthz through the VIP unanswered for at most ${failover.longestGapMs} ms; the VIP on another master ${failover.movedAfterMs} ms after the stop took effect`);
    console.log(`written to ${RESULTS}`);
    for (const id of instances) await api.task(id, 'terminate', { terminationType: 'FORCEFUL' }).then((op) => client.workflow.getHandle(op).result()).catch(() => undefined);
  } finally {
    await connection.close();
    await product.stop();
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
