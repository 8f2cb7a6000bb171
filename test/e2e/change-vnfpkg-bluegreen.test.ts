/**
 * ChangeCurrentVnfPkg BlueGreen (seed 004's upgrade_type BlueGreen) through the
 * API on the simulator, coordinated by the reference EM (em/) over HTTP:
 * new VNFCs beside the old, coordinate new, switch, coordinate old, remove old;
 * rollback removes the new ones and leaves the old ones as they were.
 */
import { startEm, Em } from '../../em/server';
import { call, opIdFrom, serverImageName, waitOpState } from '../support/api';
import { changeRequest, changeVnfpkg, done, H, images, instantiated, onboardPair, V2 } from '../support/change-vnfpkg';

let em: Em;
let oldVnfd: string;
let newVnfd: string;

const vnfcParam = (side: 'old' | 'new') => ({
  cp_name: 'VDU1_CP1', username: 'ubuntu', password: 'bg-secret-pw', endpoint: em.url, timeout: 30, inputParams: { side },
});
const blueGreen = () => changeRequest(newVnfd, 'BlueGreen', vnfcParam);
const coordsOf = (opId: string) => em.coordinations().filter((c) => c.request.vnfLcmOpOccId === opId);
const vnfcs = async (id: string): Promise<{ id: string; vduId: string; name: string; serverId: string }[]> =>
  (await call('GET', `${V2}/vnf_instances/${id}`)).body.instantiatedVnfInfo.vnfcResourceInfo
    .map((v: any) => ({ id: v.id, vduId: v.vduId, name: v.metadata.heatResourceName, serverId: v.computeResource.resourceId }));
const names = (list: { name: string }[]) => list.map((v) => v.name).sort();

beforeAll(async () => {
  em = await startEm({});
  ({ oldVnfd, newVnfd } = await onboardPair());
});
afterAll(() => em.close());
beforeEach(() => em.setBehaviour({ mode: 'sync', result: 'CONTINUE' }));

test('new VNFCs beside the old, coordinated, switch, old coordinated then removed; a later scale keeps the new indices', async () => {
  const id = await instantiated(oldVnfd);
  const before = await vnfcs(id);
  expect(names(before)).toEqual(['VDU1-0', 'VDU2-0']);
  const opId = await changeVnfpkg(id, blueGreen());
  const op = await done(opId);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');

  const after = await vnfcs(id);
  expect(names(after)).toEqual(['VDU1-1', 'VDU2-1']);
  expect(after.some((v) => before.some((b) => b.id === v.id || b.serverId === v.serverId))).toBe(false);
  for (const b of before) await expect(serverImageName(b.serverId)).rejects.toThrow(/404/);
  expect(await images(id)).toEqual({ 'VDU1-1': 'two_vdu_vnf-image-v2' });
  const inst = (await call('GET', `${V2}/vnf_instances/${id}`)).body;
  expect(inst.vnfdId).toBe(newVnfd);

  // every new VNFC coordinated (new side) before any old one (old side), each with its own vnfc_param
  const seen = coordsOf(opId).map((c) => [c.request.inputParams?.side, c.request.inputParams?.vnfcInstanceId]);
  expect(seen.map(([side]) => side)).toEqual(['new', 'new', 'old', 'old']);
  expect(seen.slice(0, 2).map(([, v]) => v).sort()).toEqual(after.map((v) => v.id).sort());
  expect(seen.slice(2).map(([, v]) => v).sort()).toEqual(before.map((v) => v.id).sort());
  expect(op.lcmCoordinations.map((c: any) => c.coordinationResult)).toEqual(['CONTINUE', 'CONTINUE', 'CONTINUE', 'CONTINUE']);
  // the op's resource changes sum up both stack updates
  const changes = Object.fromEntries(op.resourceChanges.affectedVnfcs.map((c: any) => [c.id, c.changeType]));
  expect(changes).toEqual(Object.fromEntries([...after.map((v) => [v.id, 'ADDED']), ...before.map((v) => [v.id, 'REMOVED'])]));
  expect(JSON.stringify(op)).not.toContain('bg-secret-pw');

  // a scale-out afterwards adds VDU1-2 and leaves VDU1-1 where it is (no renumbering back to VDU1-0)
  const scale = await call('POST', `${V2}/vnf_instances/${id}/scale`, { type: 'SCALE_OUT', aspectId: 'VDU1_scale', numberOfSteps: 1 }, H);
  expect(scale.status).toBe(202);
  expect((await waitOpState(opIdFrom(scale), ['COMPLETED', 'FAILED_TEMP'], 60_000, 'v2')).operationState).toBe('COMPLETED');
  const scaled = await vnfcs(id);
  expect(names(scaled)).toEqual(['VDU1-1', 'VDU1-2', 'VDU2-1']);
  expect(scaled.find((v) => v.name === 'VDU1-1')!.serverId).toBe(after.find((v) => v.name === 'VDU1-1')!.serverId);
});

test('ABORT on a new VNFC -> FAILED_TEMP with both colours; rollback removes the new ones, the old ones untouched', async () => {
  const id = await instantiated(oldVnfd);
  const before = await vnfcs(id);
  em.setBehaviour({ mode: 'sync', result: 'ABORT' });
  const opId = await changeVnfpkg(id, blueGreen());
  const failed = await done(opId);
  expect(failed.operationState).toBe('FAILED_TEMP');
  expect(failed.error.detail).toMatch(/ended ABORT/);
  expect(failed.currentStep).toMatch(/^coordinate new VNFC VDU1-1/);
  const both = await vnfcs(id);
  expect(names(both)).toEqual(['VDU1-0', 'VDU1-1', 'VDU2-0', 'VDU2-1']);
  expect(await images(id)).toEqual({ 'VDU1-0': 'two_vdu_vnf-image', 'VDU1-1': 'two_vdu_vnf-image-v2' });
  expect((await call('GET', `${V2}/vnf_instances/${id}`)).body.vnfdId).toBe(oldVnfd); // not switched yet

  em.setBehaviour({ mode: 'sync', result: 'CONTINUE' });
  expect((await call('POST', `${V2}/vnf_lcm_op_occs/${opId}/rollback`, undefined, H)).status).toBe(202);
  const rolled = await done(opId, ['ROLLED_BACK', 'FAILED_TEMP']);
  expect(rolled.error?.detail ?? rolled.operationState).toBe('ROLLED_BACK');
  expect(await vnfcs(id)).toEqual(expect.arrayContaining(before));
  expect((await vnfcs(id)).length).toBe(before.length);
  for (const v of both.filter((x) => !before.some((b) => b.id === x.id))) await expect(serverImageName(v.serverId)).rejects.toThrow(/404/);
  expect(await images(id)).toEqual({ 'VDU1-0': 'two_vdu_vnf-image' });
  expect(coordsOf(opId).filter((c) => c.request.inputParams?.side === 'old')).toHaveLength(0); // the old ones were never coordinated
  expect((await call('GET', `${V2}/vnf_instances/${id}`)).body.vnfdId).toBe(oldVnfd);
});
