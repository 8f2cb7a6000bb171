/**
 * Heal (SOL002 per VNFC, SOL003 whole) and scale through the API on the
 * embedded cloud (real Heat), for the two-VDU sample (no Mgmt Driver hooks).
 */
import path from 'node:path';
import { sampleVariant } from '../../samples/variant';
import { addFault, call, clearFaults, UNTIL_CLEARED, onboard, opIdFrom, stacksNamed, waitOpState } from '../support/api';

let vnfdId: string;
let id: string;

async function info(): Promise<any> {
  return (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body.instantiatedVnfInfo;
}
async function run(task: string, body: unknown, expectState = 'COMPLETED'): Promise<any> {
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/${task}`, body);
  expect(r.status).toBe(202);
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP', 'ROLLED_BACK'], 60_000);
  expect(op.error?.detail ?? op.operationState).toBe(expectState);
  return op;
}
const vdu1 = (i: any) => i.vnfcResourceInfo.filter((v: any) => v.vduId === 'VDU1');
const liveStacks = () => stacksNamed(`vnf-${id}`);

beforeAll(async () => {
  // The sample under its own vnfdId, so other test files' packages do not interfere.
  const variant = sampleVariant(path.resolve(__dirname, '../../samples/two_vdu_vnf'));
  vnfdId = variant.vnfdId;
  expect((await onboard(variant.zip)).onboardingState).toBe('ONBOARDED');
  id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
  expect((await call('POST', `/vnflcm/v1/vnf_instances/${id}/heal`, {})).status).toBe(409);
  await run('instantiate', {
    flavourId: 'simple', instantiationLevelId: 'instantiation_level_1',
    extVirtualLinks: [{ id: 'net0', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  });
});

afterEach(() => clearFaults());

test('scale out adds a VNFC with new ids, keeps the others; scale in removes the newest', async () => {
  const before = await info();
  expect(vdu1(before)).toHaveLength(1);
  expect(before.scaleStatus).toEqual([{ aspectId: 'VDU1_scale', scaleLevel: 0 }]);
  const out = await run('scale', { type: 'SCALE_OUT', aspectId: 'VDU1_scale', numberOfSteps: 1 });
  const grown = await info();
  expect(vdu1(grown)).toHaveLength(2);
  expect(grown.scaleStatus).toEqual([{ aspectId: 'VDU1_scale', scaleLevel: 1 }]);
  expect(grown.vnfcResourceInfo.map((v: any) => v.id)).toEqual(expect.arrayContaining(before.vnfcResourceInfo.map((v: any) => v.id)));
  const addedIds = out.resourceChanges.affectedVnfcs.filter((a: any) => a.changeType === 'ADDED').map((a: any) => a.id);
  expect(addedIds).toHaveLength(1);
  expect(vdu1(grown).find((v: any) => v.id === addedIds[0]).metadata.heatResourceName).toBe('VDU1-1');

  expect((await call('POST', `/vnflcm/v1/vnf_instances/${id}/scale`, { type: 'SCALE_OUT', aspectId: 'VDU1_scale', numberOfSteps: 5 })).status).toBe(422);
  expect((await call('POST', `/vnflcm/v1/vnf_instances/${id}/scale`, { type: 'SCALE_OUT', aspectId: 'nope' })).status).toBe(400);
  expect((await call('POST', `/vnflcm/v1/vnf_instances/${id}/scale`, { type: 'SCALE_SIDEWAYS', aspectId: 'VDU1_scale' })).status).toBe(400);

  const inOp = await run('scale', { type: 'SCALE_IN', aspectId: 'VDU1_scale' });
  const removed = inOp.resourceChanges.affectedVnfcs.filter((a: any) => a.changeType === 'REMOVED').map((a: any) => a.id);
  expect(removed).toEqual(addedIds);
  expect(vdu1(await info())).toHaveLength(1);
  expect((await call('POST', `/vnflcm/v1/vnf_instances/${id}/scale`, { type: 'SCALE_IN', aspectId: 'VDU1_scale' })).status).toBe(422);
});

test('a failed scale-out rolls back to the old size', async () => {
  // new servers fail in Nova until Heat gives up the update
  await addFault({ target: 'server', operation: 'create', mode: 'fail', message: 'Quota exceeded for instances', times: UNTIL_CLEARED });
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/scale`, { type: 'SCALE_OUT', aspectId: 'VDU1_scale', numberOfSteps: 2 });
  const op = await waitOpState(opIdFrom(r), ['FAILED_TEMP', 'COMPLETED']);
  expect(op.error.detail).toContain('Quota exceeded for instances');
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${op.id}/rollback`)).status).toBe(202);
  expect((await waitOpState(op.id, ['ROLLED_BACK', 'FAILED_TEMP'])).operationState).toBe('ROLLED_BACK');
  const now = await info();
  expect(vdu1(now)).toHaveLength(1);
  expect(now.scaleStatus).toEqual([{ aspectId: 'VDU1_scale', scaleLevel: 0 }]);
});

test('heal of one VNFC replaces its server only; its vnfcInfo id stays', async () => {
  const before = await info();
  const target = vdu1(before)[0];
  const other = before.vnfcResourceInfo.find((v: any) => v.vduId === 'VDU2');
  expect((await call('POST', `/vnflcm/v1/vnf_instances/${id}/heal`, { vnfcInstanceId: ['no-such-vnfc'] })).status).toBe(400);
  // seed 000 writes a single id as a string
  const op = await run('heal', { vnfcInstanceId: target.id, cause: 'registry not answering' });
  const after = await info();
  const healed = after.vnfcResourceInfo.find((v: any) => v.id === target.id);
  expect(healed.computeResource.resourceId).not.toBe(target.computeResource.resourceId);
  expect(after.vnfcInfo.map((c: any) => c.id).sort()).toEqual(before.vnfcInfo.map((c: any) => c.id).sort());
  expect(after.vnfcResourceInfo.find((v: any) => v.id === other.id).computeResource.resourceId).toBe(other.computeResource.resourceId);
  expect(op.resourceChanges.affectedVnfcs).toEqual([expect.objectContaining({ id: target.id, changeType: 'MODIFIED' })]);
  expect((await liveStacks()).filter((s) => s.status !== 'DELETE_COMPLETE')).toHaveLength(1);
});

test('whole heal recreates the stack under the same name with a new id', async () => {
  const before = await info();
  const stacksBefore = (await liveStacks()).filter((s) => s.status !== 'DELETE_COMPLETE');
  expect(stacksBefore).toHaveLength(1);
  await run('heal', {});
  const stacksAfter = (await liveStacks()).filter((s) => s.status !== 'DELETE_COMPLETE');
  expect(stacksAfter).toHaveLength(1);
  expect(stacksAfter[0].id).not.toBe(stacksBefore[0].id);
  const after = await info();
  expect(after.vnfcResourceInfo).toHaveLength(before.vnfcResourceInfo.length);
  for (const v of after.vnfcResourceInfo) {
    expect(before.vnfcResourceInfo.map((b: any) => b.computeResource.resourceId)).not.toContain(v.computeResource.resourceId);
  }
});

test('a whole heal that fails keeps track of the new stack: retry and terminate work', async () => {
  await addFault({ target: 'server', operation: 'create', mode: 'fail', message: 'No valid host was found', times: UNTIL_CLEARED });
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/heal`, { cause: 'whole' });
  const op = await waitOpState(opIdFrom(r), ['FAILED_TEMP', 'COMPLETED']);
  expect(op.error.detail).toContain('No valid host was found');
  await clearFaults();
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${op.id}/retry`)).status).toBe(202);
  expect((await waitOpState(op.id, ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
  await run('terminate', { terminationType: 'FORCEFUL' });
  expect((await liveStacks()).every((s) => s.status === 'DELETE_COMPLETE')).toBe(true);
});
