/**
 * ChangeExtVnfConnectivity through the API on the simulator, whose Neutron
 * has the networks `public` (127.20.0.0/16) and `private` (127.21.0.0/16):
 * a CP moves to the other network on the same server, the instance shows its
 * new port and address, later operations keep the new connectivity, and an
 * injected Neutron fault is rolled back to the old one.
 */
import path from 'node:path';
import { sampleVariant } from '../../samples/variant';
import { addFault, call, clearFaults, onboard, opIdFrom, sim, waitOpState } from '../support/api';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const PUBLIC = 'f0c82461-36b5-4d86-8322-b0bc19cda65f';
const PRIVATE = '71a3fbd1-f31e-4c2c-b0e2-26267d64a9ee';
let vnfdId: string;

async function instantiated(): Promise<string> {
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple', extVirtualLinks: [{ id: 'net0', resourceId: PUBLIC, extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  });
  expect((await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
  return id;
}
async function changeExtConn(id: string, body: unknown, want: string[] = ['COMPLETED', 'FAILED_TEMP']): Promise<any> {
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/change_ext_conn`, body);
  expect([r.status, r.text]).toEqual([202, '']);
  return waitOpState(opIdFrom(r), want, 90_000);
}
const info = async (id: string) => (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body.instantiatedVnfInfo;
/** A VNFC's CP: its address as the instance shows it, its port, and the server's SSH address on the simulator. */
async function cpOf(id: string, heatResourceName: string, cpdId: string) {
  const i = await info(id);
  const vnfc = i.vnfcResourceInfo.find((v: any) => v.metadata.heatResourceName === heatResourceName);
  const cp = vnfc.vnfcCpInfo.find((c: any) => c.cpdId === cpdId);
  const ext = i.extCpInfo.find((e: any) => e.id === cp.vnfExtCpId);
  const link = i.extVirtualLinkInfo.find((l: any) => l.extLinkPorts?.some((p: any) => p.id === ext.extLinkPortId));
  const port = link.extLinkPorts.find((p: any) => p.id === ext.extLinkPortId).resourceHandle.resourceId;
  const address = cp.cpProtocolInfo[0].ipOverEthernet?.ipAddresses?.[0]?.addresses?.[0];
  if (!address) throw new Error(`no address on ${heatResourceName} ${cpdId}: ${JSON.stringify(cp)}`);
  return { serverId: vnfc.computeResource.resourceId, address, link, port, ext };
}
const toPrivate = (cpdId: string) => ({ extVirtualLinks: [{ id: 'net1', resourceId: PRIVATE, extCps: [{ cpdId, cpConfig: { [`${cpdId}_1`]: { cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] } } }] }] });

beforeAll(async () => { vnfdId = (await onboard(sampleVariant(SAMPLE).zip)).vnfdId; });
afterEach(() => clearFaults());

test('a CP moves to the other network: same server, a new port and address there; the others stay; a later scale-out follows', async () => {
  const id = await instantiated();
  const before = await cpOf(id, 'VDU1-0', 'VDU1_CP1');
  const vdu2 = await cpOf(id, 'VDU2-0', 'VDU2_CP1');
  expect(before.address).toMatch(/^127\.20\./);
  const op = await changeExtConn(id, toPrivate('VDU1_CP1'));
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  expect(op.operation).toBe('CHANGE_EXT_CONN');

  const after = await cpOf(id, 'VDU1-0', 'VDU1_CP1');
  expect(after.serverId).toBe(before.serverId);
  expect(after.ext.id).toBe(before.ext.id); // the same CP instance, now elsewhere
  expect(after.link.id).toBe('net1');
  expect(after.link.resourceHandle.resourceId).toBe(PRIVATE);
  expect(after.port).not.toBe(before.port);
  expect(after.address).toMatch(/^127\.21\./);
  const server = await sim<any>('GET', `/sim/servers/${after.serverId}`);
  expect(server.sshAddress).toBe(after.address); // the machine answers on its new address
  const vdu2After = await cpOf(id, 'VDU2-0', 'VDU2_CP1'); // untouched
  expect([vdu2After.address, vdu2After.port, vdu2After.ext]).toEqual([vdu2.address, vdu2.port, vdu2.ext]);
  const links = (await info(id)).extVirtualLinkInfo;
  expect(links.map((l: any) => [l.id, l.currentVnfExtCpData.map((c: any) => c.cpdId)])).toEqual([['net0', ['VDU2_CP1']], ['net1', ['VDU1_CP1']]]);
  expect(op.changedExtConnectivity.map((l: any) => l.id).sort()).toEqual(['net0', 'net1']);

  // what later operations build from is the new connectivity: a scale-out's VNFC comes up on private
  const scale = await call('POST', `/vnflcm/v1/vnf_instances/${id}/scale`, { type: 'SCALE_OUT', aspectId: 'VDU1_scale' });
  expect((await waitOpState(opIdFrom(scale), ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
  expect((await cpOf(id, 'VDU1-1', 'VDU1_CP1')).address).toMatch(/^127\.21\./);
  expect((await cpOf(id, 'VDU1-0', 'VDU1_CP1')).port).toBe(after.port);
});

test('a Neutron fault on the new port: FAILED_TEMP with Heat\'s reason; rollback leaves the CP where it was', async () => {
  const id = await instantiated();
  const before = await cpOf(id, 'VDU2-0', 'VDU2_CP1');
  const infoBefore = await info(id);
  await addFault({ target: 'port', operation: 'create', mode: 'fail', code: 400, message: 'injected port fault' });
  const op = await changeExtConn(id, toPrivate('VDU2_CP1'));
  expect(op.operationState).toBe('FAILED_TEMP');
  expect(op.error.detail).toMatch(/update stack \(external connectivity\).*injected port fault/s);
  await clearFaults();
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${op.id}/rollback`)).status).toBe(202);
  const rolled = await waitOpState(op.id, ['ROLLED_BACK', 'FAILED_TEMP'], 90_000);
  expect(rolled.error?.detail ?? rolled.operationState).toBe('ROLLED_BACK');
  expect(await cpOf(id, 'VDU2-0', 'VDU2_CP1')).toEqual(before);
  const infoAfter = await info(id);
  expect(infoAfter.extVirtualLinkInfo).toEqual(infoBefore.extVirtualLinkInfo);
  expect(rolled.changedExtConnectivity).toBeUndefined();
  // and the instance's record still has the old connectivity: the same change now works
  expect((await changeExtConn(id, toPrivate('VDU2_CP1'))).operationState).toBe('COMPLETED');
  expect((await cpOf(id, 'VDU2-0', 'VDU2_CP1')).address).toMatch(/^127\.21\./);
});

test('refusals name the field: unknown or internal CP 400, a CP named twice 400, vimConnectionInfo 422, NOT_INSTANTIATED 409', async () => {
  const id = await instantiated();
  const post = (body: unknown, inst = id) => call('POST', `/vnflcm/v1/vnf_instances/${inst}/change_ext_conn`, body);
  const link = (cpdIds: string[]) => ({ id: 'n', resourceId: PRIVATE, extCps: cpdIds.map((cpdId) => ({ cpdId })) });
  const unknown = await post({ extVirtualLinks: [link(['NOPE'])] });
  expect([unknown.status, unknown.body.detail]).toEqual([400, expect.stringMatching(/^extVirtualLinks\[0\]\.extCps\[0\]\.cpdId: "NOPE"/)]);
  const internal = await post({ extVirtualLinks: [link(['VDU1_CP2'])] });
  expect([internal.status, internal.body.detail]).toEqual([400, expect.stringMatching(/internal CP/)]);
  const twice = await post({ extVirtualLinks: [link(['VDU1_CP1']), { ...link(['VDU1_CP1']), id: 'm' }] });
  expect([twice.status, twice.body.detail]).toEqual([400, expect.stringMatching(/^extVirtualLinks\[1\]\.extCps\[0\]\.cpdId/)]);
  expect((await post({ extVirtualLinks: [] })).status).toBe(400);
  const vim = await post({ extVirtualLinks: [link(['VDU1_CP1'])], vimConnectionInfo: [{ id: 'x', vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3' }] });
  expect([vim.status, vim.body.detail]).toEqual([422, expect.stringMatching(/^vimConnectionInfo/)]);
  const fresh = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
  expect((await post({ extVirtualLinks: [link(['VDU1_CP1'])] }, fresh)).status).toBe(409);
  expect((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?vnfInstanceId=${id}&operation=CHANGE_EXT_CONN`)).body).toEqual([]);
});
