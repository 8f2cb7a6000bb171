/**
 * The saga engine under the Magnum status policy, on a real Temporal server:
 * a failure ends in CREATE_FAILED with a status_reason naming the step (and
 * its node), or, with automatic rollback, runs the compensations in reverse
 * and ends ROLLBACK_COMPLETE (ROLLBACK_FAILED if a compensation fails). The
 * status is recorded through the policy's activity and the ClusterStatus
 * search attribute.
 */
import { randomUUID } from 'node:crypto';
import type { ClusterStatusRecord } from '../../engine/magnum-status';
import { SA_CLUSTER_STATUS } from '../../common/search-attributes';
import { startProbeWorker, type ProbeWorker } from '../support/probe-worker';

const statuses: Record<string, ClusterStatusRecord[]> = {};
const calls: Record<string, string[]> = {};
/** Per cluster: the step and compensation names that fail. */
const failing: Record<string, string[]> = {};
let probe: ProbeWorker;

beforeAll(async () => {
  probe = await startProbeWorker('cluster-saga-probe', require.resolve('../workflows/cluster-saga-probe'), {
    async recordClusterStatus(r: ClusterStatusRecord) { (statuses[r.clusterId] ??= []).push(r); },
    async step({ clusterId, name }: { clusterId: string; name: string }) {
      (calls[clusterId] ??= []).push(name);
      if (failing[clusterId]?.includes(name)) throw new Error(`${name} exited 1: connection refused`);
    },
  });
});

afterAll(() => probe.stop());

async function create(fail: string[], autoRollback: boolean) {
  const clusterId = randomUUID();
  failing[clusterId] = fail;
  const handle = await probe.client.workflow.start('clusterSagaProbe', { taskQueue: probe.taskQueue, workflowId: clusterId, args: [{ clusterId, autoRollback }] });
  const end = await handle.result();
  const described = await handle.describe();
  return { clusterId, end, seen: statuses[clusterId].map((s) => s.status), last: statuses[clusterId].at(-1)!, calls: calls[clusterId], sa: described.typedSearchAttributes.get(SA_CLUSTER_STATUS) };
}

test('success: CREATE_IN_PROGRESS -> CREATE_COMPLETE, empty reason', async () => {
  const r = await create([], false);
  expect(r.end).toBe('CREATE_COMPLETE');
  expect(r.seen).toEqual(['CREATE_IN_PROGRESS', 'CREATE_COMPLETE']);
  expect(r.last.statusReason).toBe('');
  expect(r.sa).toBe('CREATE_COMPLETE');
});

test('failure without rollback: CREATE_FAILED naming the step and node, nothing undone, no parking', async () => {
  const r = await create(['join worker'], false);
  expect(r.end).toBe('CREATE_FAILED');
  expect(r.seen).toEqual(['CREATE_IN_PROGRESS', 'CREATE_FAILED']);
  expect(r.last.statusReason).toMatch(/^Step "join of worker 2 \(10\.0\.0\.7\)" failed: join worker exited 1: connection refused$/);
  expect(r.calls).toEqual(['create stack', 'init master', 'join worker']);
  expect(r.sa).toBe('CREATE_FAILED');
});

test('failure with automatic rollback: compensations in reverse, ROLLBACK_COMPLETE keeps the cause', async () => {
  const r = await create(['join worker'], true);
  expect(r.end).toBe('ROLLBACK_COMPLETE');
  expect(r.seen).toEqual(['CREATE_IN_PROGRESS', 'ROLLBACK_IN_PROGRESS', 'ROLLBACK_COMPLETE']);
  expect(r.calls).toEqual(['create stack', 'init master', 'join worker', 'reset master', 'delete stack']);
  expect(r.last.statusReason).toMatch(/join of worker 2 \(10\.0\.0\.7\).*connection refused/);
});

test('a compensation that fails: ROLLBACK_FAILED naming the compensation', async () => {
  const r = await create(['init master', 'delete stack'], true);
  expect(r.end).toBe('ROLLBACK_FAILED');
  expect(r.seen).toEqual(['CREATE_IN_PROGRESS', 'ROLLBACK_IN_PROGRESS', 'ROLLBACK_FAILED']);
  // the failed step had started, so its compensation ran too (compensations undo partial work)
  expect(r.calls).toEqual(['create stack', 'init master', 'reset master', 'delete stack']);
  expect(r.last.statusReason).toMatch(/^Step "rollback: create stack" failed: delete stack exited 1/);
});
