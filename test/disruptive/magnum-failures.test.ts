/**
 * Magnum operations that meet a failing cloud: a delete whose servers will
 * not go is retried on timers, then DELETE_FAILED naming what is left, and a
 * second delete works once the cloud lets go; an update with ?rollback=True
 * whose new server fails rolls back to the old size (ROLLBACK_IN_PROGRESS ->
 * ROLLBACK_COMPLETE) with the failure kept in status_reason.
 */
import { addFault, addSshFault, clearFaults, UNTIL_CLEARED } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';
import { detail, LATEST, mcall, templateBody, waitStatus } from '../support/magnum';
import { killWorker, restartWorker } from '../support/worker-control';

const run = Date.now().toString(36);
let h: Record<string, string>;
let template: string;
let user: TestUser;

beforeAll(async () => {
  user = await keystoneUser(`fail-${run}`, `fail-user-${run}`, 'member');
  h = await user.headers(LATEST);
  template = (await mcall('POST', '/v1/clustertemplates', templateBody(`fail-${run}`), h)).body.uuid;
});
afterEach(async () => {
  await clearFaults();
});

test('a delete whose servers will not go: retried, DELETE_FAILED naming what is left, then a new delete works', async () => {
  killWorker();
  restartWorker('worker', { MAGNUM_DELETE_RETRY_PAUSE_S: '1' });
  try {
    await addSshFault({ match: 'swapoff', exitCode: 1, times: 10 });
    const c = await mcall('POST', '/v1/clusters', { cluster_template_id: template, name: `stuck-${run}`, node_count: 1 }, h);
    await waitStatus(c.body.uuid, ['CREATE_FAILED'], 120_000, h);
    await addFault({ target: 'server', operation: 'delete', mode: 'fail', match: `stuck-${run}`, times: UNTIL_CLEARED });
    expect((await mcall('DELETE', `/v1/clusters/${c.body.uuid}`, undefined, h)).status).toBe(204);
    const failed = await waitStatus(c.body.uuid, ['DELETE_FAILED'], 240_000, h);
    expect(failed.status_reason).toMatch(/^Step "delete the stack" failed: the stack would not delete after 5 attempts: .*DELETE_FAILED.*; left: .*default-(master|worker)-0 \(/);
    expect(Object.keys(failed.faults)).toEqual(['default-master', 'default-worker']);
    await clearFaults(); // the operator fixed the cloud
    expect((await mcall('DELETE', `/v1/clusters/${c.body.uuid}`, undefined, h)).status).toBe(204);
    await waitStatus(c.body.uuid, ['GONE'], 240_000, h);
  } finally {
    killWorker();
    restartWorker();
  }
}, 600_000);

test('update --rollback whose new server fails: ROLLBACK_COMPLETE at the old size, the failure in status_reason', async () => {
  const c = await mcall('POST', '/v1/clusters', { cluster_template_id: template, name: `rb-${run}`, node_count: 1 }, h);
  const done = await waitStatus(c.body.uuid, ['CREATE_COMPLETE'], 300_000, h);
  expect(done.node_count).toBe(1);
  await addFault({ target: 'server', operation: 'create', mode: 'fail', match: 'default-worker-1', times: UNTIL_CLEARED });
  const upd = await mcall('PATCH', `/v1/clusters/${c.body.uuid}/?rollback=True`, [{ op: 'replace', path: '/node_count', value: 2 }], h);
  expect([upd.status, detail(upd)]).toEqual([202, JSON.stringify({ uuid: c.body.uuid })]);
  await waitStatus(c.body.uuid, ['ROLLBACK_IN_PROGRESS', 'ROLLBACK_COMPLETE'], 240_000, h);
  await clearFaults();
  const back = await waitStatus(c.body.uuid, ['ROLLBACK_COMPLETE'], 300_000, h);
  expect(back.node_count).toBe(1);
  expect(back.status_reason).toMatch(/^Step "resize default-worker to 2 node\(s\) in the stack" failed: .*resources\.default-worker-1/);
  const worker = (await mcall('GET', `/v1/clusters/${c.body.uuid}/nodegroups/default-worker`, undefined, h)).body;
  expect([worker.node_count, worker.status]).toEqual([1, 'ROLLBACK_COMPLETE']);
  const events = (await mcall('GET', `/v1/notifications?cluster_id=${c.body.uuid}`)).body.notifications.map((n: any) => `${n.event_type} ${n.payload.outcome}`);
  expect(events).toEqual(expect.arrayContaining(['magnum.cluster.update pending', 'magnum.cluster.update success']));
  // a nodegroup's bounds and node labels (1.14), checked against its size, then put on its nodes by a workflow
  const bad = await mcall('PATCH', `/v1/clusters/${c.body.uuid}/nodegroups/default-worker`, [{ op: 'replace', path: '/min_node_count', value: 3 }], h);
  expect([bad.status, detail(bad)]).toEqual([409, 'min_node_count for default-worker is invalid (min_node_count (3) should be less or equal to node_count (1))']);
  const ng = await mcall('PATCH', `/v1/clusters/${c.body.uuid}/nodegroups/default-worker`, [
    { op: 'replace', path: '/max_node_count', value: 4 }, { op: 'replace', path: '/node_labels', value: "{'tier': 'web'}" },
  ], h);
  expect([ng.status, ng.body.max_node_count, ng.body.node_labels]).toEqual([202, 4, { tier: 'web' }]);
  await waitStatus(c.body.uuid, ['UPDATE_COMPLETE'], 120_000, h);
  const outside = await mcall('POST', `/v1/clusters/${c.body.uuid}/actions/resize`, { node_count: 5 }, h);
  expect([outside.status, detail(outside)]).toEqual([400, 'Resizing default-worker outside the allowed range: min_node_count = 0, max_node_count = 4']);
  await mcall('DELETE', `/v1/clusters/${c.body.uuid}`, undefined, h);
  await waitStatus(c.body.uuid, ['GONE'], 240_000, h);
}, 900_000);
