/**
 * A Magnum upgrade's plan (planMagnumUpgrade) on a real SQLite store: the
 * masters one at a time in index order, then the workers in batches of
 * max_batch_size (Magnum's label), each batch one step whose nodes upgrade
 * at once; only joined nodes, only the named nodegroup's when one is named.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ActivityDeps } from '../../lcm-activities/deps';
import { openStore, type Store } from '../../store';
import { createCluster, setNodeJoinState, syncClusterNodes } from '../../store/repos/clusters';
import { createMagnumCluster, nodegroupsOf } from '../../store/repos/magnum/clusters';
import { insertTemplate } from '../../store/repos/magnum/templates';
import { upgradeActivities } from '../../ops/magnum/shared/activities/upgrade';

let dir: string;
let store: Store;
const clusterId = crypto.randomUUID();
const now = new Date().toISOString();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'magnum-upgrade-plan-'));
  store = await openStore({ dataDir: dir });
  const template = await insertTemplate(store, { id: crypto.randomUUID(), projectId: 'p1', userId: 'u1', name: 't', attrs: {} as never, createdAt: now });
  const group = (role: string, name: string, count: number) => ({
    uuid: crypto.randomUUID(), projectId: 'p1', name, role, imageId: 'img', nodeCount: count,
    labels: {}, nodeLabels: {}, nodeTaints: [], status: 'UPDATE_IN_PROGRESS' as const, members: Array.from({ length: count }, (_, i) => i), createdAt: now,
  });
  await createMagnumCluster(store, {
    id: clusterId, projectId: 'p1', userId: 'u1', name: 'c1', templateId: template.id, status: 'UPDATE_IN_PROGRESS',
    attrs: { labels: {}, labels_overridden: {}, labels_added: {}, labels_skipped: {}, create_timeout: 60, floating_ip_enabled: false, master_lb_enabled: true, merge_labels: false } as never,
    operation: 'cluster-upgrade', operationId: 'op-upgrade', opNodegroups: [], opParams: {}, createdAt: now,
  }, [group('master', 'default-master', 3), group('worker', 'default-worker', 5), group('worker', 'gpu', 2)], { clusters: 10, nodes: 20 });
  await createCluster(store, {
    id: clusterId, projectId: 'p1', kind: 'magnum', name: 'c1', settings: { kubeVersion: '1.36.3', podCidr: '10.100.0.0/16', serviceCidr: '10.254.0.0/16', registries: [] },
    secretsSealed: '', createdAt: now,
  }, { certs: {} as never, keysSealed: '' });
  // listed out of order, and "-10" after "-9": the plan orders by index
  const node = (role: 'master' | 'worker', nodegroup: string, i: number) => ({ serverId: `${nodegroup}-${i}-server`, name: `c1-${nodegroup}-${i}`, address: `127.30.0.${i}`, role, nodegroup, hostKeyId: `${nodegroup}-${i}` });
  const nodes = [node('master', 'default-master', 2), node('master', 'default-master', 0), node('master', 'default-master', 1),
    ...[4, 10, 1, 9, 2].map((i) => node('worker', 'default-worker', i)), node('worker', 'gpu', 0), node('worker', 'gpu', 1)];
  await syncClusterNodes(store, clusterId, nodes);
  for (const n of nodes) if (n.name !== 'c1-default-worker-2') await setNodeJoinState(store, clusterId, n.serverId, { joinState: 'joined' });
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function plan(opParams: Record<string, unknown>) {
  await store.read(({ db, t }) => db.update(t.magnumClusters).set({ opParams }));
  const p = await upgradeActivities({ db: store } as unknown as ActivityDeps).planMagnumUpgrade({ clusterId });
  return { ...p, masters: p.masters.map((n) => n.name), workerBatches: p.workerBatches.map((b) => b.map((n) => n.name)) };
}

test('max_batch_size 2: masters one by one in index order, then every joined worker in batches of two', async () => {
  expect(await plan({ version: 'v1.37.2', maxBatchSize: 2 })).toEqual({
    version: '1.37.2', from: '1.36.3',
    masters: ['c1-default-master-0', 'c1-default-master-1', 'c1-default-master-2'],
    // default-worker-2 has not joined: nothing to upgrade there yet
    workerBatches: [['c1-default-worker-1', 'c1-default-worker-4'], ['c1-default-worker-9', 'c1-default-worker-10'], ['c1-gpu-0', 'c1-gpu-1']],
  });
});

test('the default batch is one node; a batch as large as the workers is one step', async () => {
  expect((await plan({ version: 'v1.37.2' })).workerBatches).toHaveLength(6);
  expect((await plan({ version: 'v1.37.2', maxBatchSize: 10 })).workerBatches).toHaveLength(1);
});

test('one nodegroup: only its nodes, no master', async () => {
  const gpu = (await nodegroupsOf(store, clusterId)).find((g) => g.name === 'gpu')!;
  expect(await plan({ version: 'v1.37.2', nodegroupId: gpu.id, maxBatchSize: 3 })).toMatchObject({ masters: [], workerBatches: [['c1-gpu-0', 'c1-gpu-1']] });
});
