/**
 * recordClusterStatus, the activity every Magnum phase is recorded with, on
 * a real SQLite store, with the worker dying at each of its store calls in
 * turn: a status that was committed has its CADF event and outbox rows
 * committed with it. Else a crash between the two loses the notification
 * for good once another operation supersedes the cluster's (the retried
 * write is fenced off), as a delete right after a CREATE_FAILED does.
 * Temporal is unreachable here (nothing listens on its port): waking a
 * sink's delivery workflow fails as in a crash after the commit.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { asc, eq } from 'drizzle-orm';
import type { ActivityDeps } from '../../lcm-activities/deps';
import { loadConfig, type Config } from '../../common/config';
import { openStore, type Store } from '../../store';
import { beginOperation, createMagnumCluster, magnumClusterById } from '../../store/repos/magnum/clusters';
import { insertTemplate } from '../../store/repos/magnum/templates';
import { createLogger } from '../../common/log';
import { cadfOrderingKey } from '../../notify/contracts';
import { statusActivities } from '../../ops/magnum/shared/activities/status';

const dirs: string[] = [];
const stores: Store[] = [];
let client: Client;
const cfg = (): Config => {
  const c = loadConfig();
  return { ...c, magnum: { ...c.magnum, notificationWebhooks: ['http://127.0.0.1:9/cadf'] } };
};

beforeAll(() => {
  // no gRPC retries: the unreachable frontend answers at once
  client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9', interceptors: [] }) });
});
afterAll(async () => {
  await client.connection.close();
  for (const s of stores) await s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

class Killed extends Error {}

/** The store as a worker sees it that is killed -9 after `calls` store calls: later calls never reach the database. */
function dyingAfter(store: Store, calls: number): Store {
  let made = 0;
  const turn = <T>(fn: () => Promise<T>): Promise<T> => (made++ < calls ? fn() : Promise.reject(new Killed('the worker was killed')));
  return { ...store, dialect: store.dialect, content: store.content, read: (fn) => turn(() => store.read(fn)), tx: (fn) => turn(() => store.tx(fn)) };
}

async function freshCluster(): Promise<{ store: Store; clusterId: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'magnum-status-cadf-'));
  dirs.push(dir);
  const store = await openStore({ dataDir: dir });
  stores.push(store);
  const now = new Date().toISOString();
  const template = await insertTemplate(store, {
    id: crypto.randomUUID(), projectId: 'p1', userId: 'u1', name: 't', attrs: {} as never, createdAt: now,
  });
  const clusterId = crypto.randomUUID();
  await createMagnumCluster(store, {
    id: clusterId, projectId: 'p1', userId: 'u1', name: 'c1', templateId: template.id, status: 'CREATE_IN_PROGRESS',
    attrs: { labels: {}, labels_overridden: {}, labels_added: {}, labels_skipped: {}, create_timeout: 60, floating_ip_enabled: false, master_lb_enabled: false, merge_labels: false } as never,
    operation: 'cluster-create', operationId: 'op-create', opNodegroups: [], opParams: {}, createdAt: now,
  }, ['master', 'worker'].map((role) => ({
    uuid: crypto.randomUUID(), projectId: 'p1', name: `default-${role}`, role, imageId: 'img', nodeCount: 1,
    labels: {}, nodeLabels: {}, nodeTaints: [], status: 'CREATE_IN_PROGRESS' as const, members: [0], createdAt: now,
  })), { clusters: 10, nodes: 10 });
  return { store, clusterId };
}

/** The activity as the operation's workflow runs it; what it threw (the kill, or Temporal unreachable), if anything. */
async function record(db: Store, operationId: string, clusterId: string, status: string): Promise<unknown> {
  const deps = { db, cfg: cfg(), log: createLogger('test', 'silent') } as unknown as ActivityDeps;
  const env = new MockActivityEnvironment({ workflowExecution: { workflowId: operationId, runId: 'r1' } }, { client });
  return env.run(() => statusActivities(deps).recordClusterStatus({ clusterId, status: status as never, statusReason: status.endsWith('FAILED') ? 'Step "x" failed' : '' })).then(() => undefined, (e) => e);
}

const outbox = (store: Store) => store.read(({ db, t }) => db.select().from(t.notificationOutbox)
  .where(eq(t.notificationOutbox.orderingKey, cadfOrderingKey(0))).orderBy(asc(t.notificationOutbox.seq)));
const events = (store: Store) => store.read(({ db, t }) => db.select().from(t.cadfEvents));

test('killed at any store call: a committed CREATE_FAILED has its CADF event and outbox row', async () => {
  let killedAt = 0;
  for (; killedAt < 20; killedAt++) {
    const { store, clusterId } = await freshCluster();
    const thrown = await record(dyingAfter(store, killedAt), 'op-create', clusterId, 'CREATE_FAILED');
    const status = (await magnumClusterById(store, clusterId))?.status;
    const queued = (await outbox(store)).map((r) => r.notificationType);
    if (status === 'CREATE_FAILED') {
      expect([killedAt, (await events(store)).map((e) => e.outcome), queued]).toEqual([killedAt, ['failure'], ['magnum.cluster.create']]);
    } else {
      expect([killedAt, status, queued]).toEqual([killedAt, 'CREATE_IN_PROGRESS', []]);
    }
    if (!(thrown instanceof Killed)) break; // every store call made: what stopped it was the wake-up (Temporal unreachable)
  }
  expect(killedAt).toBeGreaterThan(0);
  expect(killedAt).toBeLessThan(20);
});

test('killed right after the status commits, then superseded by a delete: the create failure is still delivered first', async () => {
  const { store, clusterId } = await freshCluster();
  let txs = 0;
  const dying: Store = { ...store, content: store.content, tx: (fn) => (txs++ < 1 ? store.tx(fn) : Promise.reject(new Killed('the worker was killed'))), read: (fn) => (txs < 1 ? store.read(fn) : Promise.reject(new Killed('the worker was killed'))) };
  await record(dying, 'op-create', clusterId, 'CREATE_FAILED');
  expect((await magnumClusterById(store, clusterId))?.status).toBe('CREATE_FAILED');
  // the API starts the delete: the create's retried write is fenced off from now on
  await beginOperation(store, clusterId, {
    operation: 'cluster-delete', operationId: 'op-delete', status: 'DELETE_IN_PROGRESS', check: () => undefined,
    nodegroups: async (_q, _c, groups) => ({ ids: groups.map((g) => g.id), status: 'DELETE_IN_PROGRESS' }),
  });
  await record(store, 'op-create', clusterId, 'CREATE_FAILED');
  await record(store, 'op-delete', clusterId, 'DELETE_IN_PROGRESS');
  expect((await outbox(store)).map((r) => `${r.notificationType} ${(r.payload as { payload: { outcome: string } }).payload.outcome}`))
    .toEqual(['magnum.cluster.create failure', 'magnum.cluster.delete pending']);
});

test('an operation that gives a reason (auto-healing) shows it from its first moment, before its workflow records a status', async () => {
  const { store, clusterId } = await freshCluster();
  await record(store, 'op-create', clusterId, 'CREATE_COMPLETE');
  await beginOperation(store, clusterId, {
    operation: 'cluster-resize', operationId: 'op-heal', status: 'UPDATE_IN_PROGRESS', statusReason: 'auto-healing: replacing w-0 of default-worker, NotReady for more than 10 s',
    opParams: { autoHealing: 'auto-healing: replacing w-0 of default-worker, NotReady for more than 10 s' }, check: () => undefined,
    nodegroups: async (_q, _c, groups) => ({ ids: [groups[0].id], status: 'UPDATE_IN_PROGRESS' }),
  });
  expect(await magnumClusterById(store, clusterId)).toMatchObject({ status: 'UPDATE_IN_PROGRESS', statusReason: 'auto-healing: replacing w-0 of default-worker, NotReady for more than 10 s' });
});
