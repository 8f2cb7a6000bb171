/**
 * Magnum benchmark: `npx tsx bench/magnum.ts` (or `npm run bench:magnum`).
 *
 * One product with its machines (as bench/cluster.ts): a cluster template on
 * the simulator's Ubuntu image, then
 *  (b) `POST /v1/clusters` (1 master + 2 workers) until CREATE_COMPLETE, and
 *      `actions/resize` by one worker until UPDATE_COMPLETE; from each
 *      operation's workflow history its whole time, the time no activity
 *      of it was running and, of that, its timers (the waits between status
 *      polls): what is left is what the workflow adds over the same activities;
 *  (a) the floor: a bare workflow of as many no-op activities in sequence.
 * With BENCH_MAGNUM_HA=1 the clusters have 3 masters behind the embedded
 * Octavia (master_lb_enabled) on Kubernetes v1.36.3, and each is then
 * upgraded to v1.37.2 (`actions/upgrade`, batches of 1): the upgrade's time
 * and, from its history, each node's (first to last activity of it).
 * Writes bench/results/magnum[-ha]-latest.json. See docs/benchmarks.md.
 * Env: BENCH_RUNS (3), BENCH_MAGNUM_HA, BENCH_HEAT_SLEEP_SCALE (1), BENCH_HEAT_POLL_MS (50).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { KeystoneSession } from '../infra/openstack/keystone';
import { baselineOperation, withBaselineWorker } from './baseline';
import { controlPlanes } from './cluster';
import { historyStats, perNodeSpans, workflowTimes } from './history';
import { latency, percentile } from './measure';
import { startProduct, type AdminLogin } from './product';

const RUNS = Number(process.env.BENCH_RUNS || '3');
const HA = process.env.BENCH_MAGNUM_HA === '1';
const MASTERS = HA ? 3 : 1;
const RESULTS = path.join(__dirname, 'results', HA ? 'magnum-ha-latest.json' : 'magnum-latest.json');
const LATEST = { 'OpenStack-API-Version': 'container-infra latest' };
const log = (m: string) => console.log(`[bench] ${new Date().toISOString().slice(11, 19)} ${m}`);
const ms = (n: number) => Math.round(n);

class Magnum {
  private readonly session: KeystoneSession;
  constructor(private readonly base: string, admin: AdminLogin) {
    this.session = new KeystoneSession({ authUrl: admin.authUrl, username: 'admin', password: admin.password, project: 'admin' });
  }
  async call(method: string, p: string, body?: unknown): Promise<any> {
    const r = await fetch(`${this.base}${p}`, {
      method, body: body === undefined ? undefined : JSON.stringify(body),
      headers: { ...LATEST, 'content-type': 'application/json', 'x-auth-token': (await this.session.getToken()).value },
    });
    const text = await r.text();
    if (r.status >= 400) throw new Error(`${method} ${p}: ${r.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  }
  /** Until the cluster's status is `want`; any *_FAILED ends the run. */
  async until(id: string, want: string): Promise<void> {
    for (;;) {
      const c = await this.call('GET', `/v1/clusters/${id}`);
      if (c.status === want) return;
      if (/_FAILED$/.test(c.status)) throw new Error(`cluster ${id} ${c.status}: ${c.status_reason}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** The workflow of the cluster's newest operation of a type (its id is magnum-<op>-<uuid>). */
async function newestWorkflow(client: Client, type: string, since: Date): Promise<string> {
  for await (const wf of client.workflow.list({ query: `WorkflowType = '${type}'` })) {
    if (wf.startTime >= since) return wf.workflowId;
  }
  throw new Error(`no ${type} workflow since ${since.toISOString()}`);
}

async function main() {
  log('starting the product with its machines');
  const product = await startProduct({ machines: true });
  const magnum = new Magnum(product.apiUrl, product.admin);
  const connection = await Connection.connect({ address: product.temporalAddress });
  const client = new Client({ connection });
  const clusters: string[] = [];
  try {
    const templateOf = (name: string, kubeTag?: string) => magnum.call('POST', '/v1/clustertemplates', {
      name, coe: 'kubernetes', image_id: 'ubuntu-22.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.small', network_driver: 'flannel',
      ...(HA ? { master_lb_enabled: true, labels: { kube_tag: kubeTag } } : {}),
    });
    const template = await templateOf('bench', 'v1.36.3');
    const createIds: string[] = [];
    const create = {
      prepare: async () => undefined,
      run: async () => {
        const since = new Date();
        const { uuid } = await magnum.call('POST', '/v1/clusters', { name: `bench-${clusters.length}`, cluster_template_id: template.uuid, master_count: MASTERS, node_count: 2 });
        clusters.push(uuid);
        await magnum.until(uuid, 'CREATE_COMPLETE');
        const wf = await newestWorkflow(client, 'magnumClusterCreate', since);
        createIds.push(wf);
        return wf;
      },
    };
    log(`cluster create (${MASTERS} master(s) + 2 workers), ${RUNS} runs`);
    const b = await latency(create, 0, RUNS);
    const createStats = await Promise.all(createIds.map((id) => historyStats(client, id)));
    const createTimes = await Promise.all(createIds.map((id) => workflowTimes(client, id)));
    const rss = controlPlanes();

    log('resize by one worker, in turns on the clusters');
    const resizeMs: number[] = [];
    const resizeIds: string[] = [];
    for (const [i, id] of clusters.entries()) {
      const since = new Date();
      const t0 = performance.now();
      await magnum.call('POST', `/v1/clusters/${id}/actions/resize`, { node_count: 3, nodegroup: 'default-worker' });
      await magnum.until(id, 'UPDATE_COMPLETE');
      resizeMs.push(performance.now() - t0);
      resizeIds.push(await newestWorkflow(client, 'magnumClusterResize', since));
      log(`resize ${i + 1}: ${ms(resizeMs[i])} ms`);
    }
    const resizeStats = await Promise.all(resizeIds.map((id) => historyStats(client, id)));
    const resizeTimes = await Promise.all(resizeIds.map((id) => workflowTimes(client, id)));

    // HA: each cluster upgraded v1.36.3 -> v1.37.2, one node at a time
    const upgradeMs: number[] = [];
    const nodeMs: number[] = [];
    if (HA) {
      const target = await templateOf('bench-v1.37.2', 'v1.37.2');
      for (const [i, id] of clusters.entries()) {
        const since = new Date();
        const t0 = performance.now();
        await magnum.call('POST', `/v1/clusters/${id}/actions/upgrade`, { cluster_template: target.uuid, max_batch_size: 1 });
        await magnum.until(id, 'UPDATE_COMPLETE');
        upgradeMs.push(performance.now() - t0);
        const spans = Object.values(await perNodeSpans(client, await newestWorkflow(client, 'magnumClusterUpgrade', since)));
        nodeMs.push(...spans);
        log(`upgrade ${i + 1}: ${ms(upgradeMs[i])} ms, ${spans.length} nodes: ${spans.map(ms).join(', ')} ms`);
      }
    }

    const nCreate = Math.round(createStats.reduce((a, s) => a + s.activities, 0) / createStats.length);
    const nResize = Math.round(resizeStats.reduce((a, s) => a + s.activities, 0) / resizeStats.length);
    log(`floors: ${nCreate} and ${nResize} no-op activities`);
    const [floorCreate, floorResize] = await withBaselineWorker(product.temporalAddress, async () => [
      await latency(baselineOperation(client, nCreate), 1, RUNS), await latency(baselineOperation(client, nResize), 1, RUNS),
    ]);
    const med = (xs: number[]) => ms(percentile(xs, 50));
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, loadavg: os.loadavg(), heatSleepScale: product.heatSleepScale },
      create: {
        apiMedianMs: ms(b.medianMs), samplesMs: b.samplesMs.map(ms), workflowMedianMs: med(createTimes.map((t) => t.totalMs)),
        outsideActivitiesMedianMs: med(createTimes.map((t) => t.outsideActivitiesMs)),
        timers: med(createStats.map((s) => s.timers)), timerMedianMs: med(createStats.map((s) => s.timerMs)), activities: nCreate, floorMedianMs: ms(floorCreate.medianMs),
      },
      resize: {
        apiMedianMs: med(resizeMs), samplesMs: resizeMs.map(ms), workflowMedianMs: med(resizeTimes.map((t) => t.totalMs)),
        outsideActivitiesMedianMs: med(resizeTimes.map((t) => t.outsideActivitiesMs)),
        timers: med(resizeStats.map((s) => s.timers)), timerMedianMs: med(resizeStats.map((s) => s.timerMs)), activities: nResize, floorMedianMs: ms(floorResize.medianMs),
      },
      controlPlaneRssMiB: rss,
      ...(HA ? { upgrade: { apiMedianMs: med(upgradeMs), samplesMs: upgradeMs.map(ms), perNodeMedianMs: med(nodeMs), perNodeMaxMs: ms(Math.max(...nodeMs)) } } : {}),
    };
    fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
    fs.writeFileSync(RESULTS, JSON.stringify(result, null, 2));
    console.log();
    for (const [name, r] of [[`create (${MASTERS}+2)`, result.create], ['resize +1 worker', result.resize]] as const) {
      console.log(`${name}: through the API ${r.apiMedianMs} ms (median of ${RUNS}); its workflow ${r.workflowMedianMs} ms, of which no activity running ${r.outsideActivitiesMedianMs} ms`
        + ` (${r.timers} status-poll timers, ${r.timerMedianMs} ms);`
        + ` floor ${r.activities} no-op activities ${r.floorMedianMs} ms`);
    }
    if (result.upgrade) console.log(`upgrade v1.36.3 -> v1.37.2 (${MASTERS}+3 nodes): ${result.upgrade.apiMedianMs} ms (median); per node median ${result.upgrade.perNodeMedianMs} ms, max ${result.upgrade.perNodeMaxMs} ms`);
    console.log(`written to ${RESULTS}`);
  } finally {
    for (const id of clusters) await magnum.call('DELETE', `/v1/clusters/${id}`).catch(() => undefined);
    await connection.close();
    await product.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
