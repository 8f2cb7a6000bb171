/**
 * ModifyVnfInfo: PATCH /vnflcm/v1|v2/vnf_instances/{id} is a MODIFY_INFO op
 * occ (STARTING -> PROCESSING -> COMPLETED) that merge-patches the
 * instance's metadata, extensions and vnfConfigurableProperties, renames it,
 * and on v2 moves it to another VNFD or merges its vimConnectionInfo.
 */
import path from 'node:path';
import { zipFiles } from '../../samples/build';
import { sampleVariant, twoVduVnfV2 } from '../../samples/variant';
import { addFault, apiUrl, call, clearFaults, eventually, onboard, opIdFrom, waitOpState } from '../support/api';
import { keystoneUser } from '../support/identity';
import { withLcmHooks } from '../support/vnfpkg-fixtures';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const H2 = { Version: '2.0.0' };
let vnfdId: string;
let otherVnfdId: string;
let otherPkgId: string;
let hookedVnfdId: string;

/** Bound to modify_information_start and _end: fails the hook additionalParams.fail_hook names. */
const HOOK = `#!/usr/bin/env node
let s = '';
process.stdin.on('data', (d) => (s += d)).on('end', () => {
  const d = JSON.parse(s);
  if (d.additionalParams.fail_hook === d.hook) { console.error('refused by the EM for ' + d.operation); process.exit(3); }
});
`;
function hookedPackage(): Buffer {
  const { files } = sampleVariant(SAMPLE);
  const df = 'Definitions/two_vdu_vnf_df_simple.yaml';
  files[df] = Buffer.from(withLcmHooks(files[df].toString(), ['modify_information_start', 'modify_information_end'], '../Scripts/hook.js'));
  files['Scripts/hook.js'] = Buffer.from(HOOK);
  return zipFiles(files);
}

const instantiateBody = {
  flavourId: 'simple', extVirtualLinks: [{ id: 'net0', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
};

async function newInstance(metadata: Record<string, unknown> = {}): Promise<string> {
  const r = await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId, vnfInstanceName: 'before', vnfInstanceDescription: 'old text', metadata });
  expect(r.status).toBe(201);
  return r.body.id;
}
async function instantiated(of = vnfdId, additionalParams?: Record<string, unknown>): Promise<string> {
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: of, vnfInstanceName: 'before' })).body.id;
  const body = { ...instantiateBody, ...(additionalParams ? { additionalParams } : {}) };
  const op = await waitOpState(opIdFrom(await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, body)), ['COMPLETED', 'FAILED_TEMP']);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  return id;
}
/** PATCH, 202 with the op occ's Location and no body; the op occ once it ended. */
async function modify(id: string, body: unknown, v = 'v1'): Promise<any> {
  const r = await call('PATCH', `/vnflcm/${v}/vnf_instances/${id}`, body, { 'content-type': 'application/merge-patch+json', ...(v === 'v2' ? H2 : {}) });
  expect([r.status, r.text]).toEqual([202, '']);
  expect(r.headers.get('location')).toBe(`${apiUrl()}/vnflcm/${v}/vnf_lcm_op_occs/${opIdFrom(r)}`);
  return waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLED_BACK'], 60_000, v);
}
const show = async (id: string, v = 'v1') => (await call('GET', `/vnflcm/${v}/vnf_instances/${id}`, undefined, v === 'v2' ? H2 : {})).body;

beforeAll(async () => {
  vnfdId = (await onboard(sampleVariant(SAMPLE).zip)).vnfdId;
  const other = await onboard(sampleVariant(SAMPLE, { editYaml: (_p, t) => twoVduVnfV2(t) }).zip);
  otherVnfdId = other.vnfdId;
  otherPkgId = other.id;
  const hooked = await onboard(hookedPackage());
  expect(hooked.onboardingFailureDetails).toBeUndefined();
  hookedVnfdId = hooked.vnfdId;
});
afterEach(() => clearFaults());

test('name, description and JSON merge patches of metadata, extensions and vnfConfigurableProperties: a MODIFY_INFO op occ', async () => {
  const id = await newInstance({ keep: 1, drop: 'x', nested: { a: 1, b: 2 }, list: [1, 2] });
  const op = await modify(id, {
    vnfInstanceName: 'after', vnfInstanceDescription: null,
    metadata: { drop: null, nested: { b: null, c: 3 }, list: [3], added: 'y' },
    extensions: { ext: { on: true } }, vnfConfigurableProperties: { isAutoscaleEnabled: false },
  });
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  expect(op.operation).toBe('MODIFY_INFO');
  expect(op.vnfInstanceId).toBe(id);
  expect(op._links.self.href).toBe(`${apiUrl()}/vnflcm/v1/vnf_lcm_op_occs/${op.id}`);
  const inst = await show(id);
  expect(inst.vnfInstanceName).toBe('after');
  // removed: absent, not null (SOL013 §4.4)
  expect(inst).not.toHaveProperty('vnfInstanceDescription');
  // RFC 7396: null removes, objects merge, arrays and scalars replace
  expect(inst.metadata).toEqual({ keep: 1, nested: { a: 1, c: 3 }, list: [3], added: 'y' });
  expect(inst.extensions).toEqual({ ext: { on: true } });
  expect(inst.vnfConfigurableProperties).toEqual({ isAutoscaleEnabled: false });
  expect(op.changedInfo).toEqual({
    vnfInstanceName: 'after', vnfInstanceDescription: null, metadata: inst.metadata, extensions: inst.extensions,
    vnfConfigurableProperties: inst.vnfConfigurableProperties,
  });
  // the same patch again changes nothing more (merge patches are idempotent)
  const again = await modify(id, { extensions: { ext: { on: true } } });
  expect(again.operationState).toBe('COMPLETED');
  expect((await show(id)).extensions).toEqual({ ext: { on: true } });
  const ops = (await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?operation=MODIFY_INFO&vnfInstanceId=${id}`)).body;
  expect(ops.map((o: any) => o.operationState)).toEqual(['COMPLETED', 'COMPLETED']);
});

test('v2 vnfdId moves the instance to another package of the project (usage states follow); v1 refuses it naming the field', async () => {
  const id = await newInstance();
  const v1 = await call('PATCH', `/vnflcm/v1/vnf_instances/${id}`, { vnfdId: otherVnfdId });
  expect(v1.status).toBe(400);
  expect(v1.body.detail).toMatch(/^vnfdId: modifiable on \/vnflcm\/v2 only/);
  expect((await call('PATCH', `/vnflcm/v2/vnf_instances/${id}`, { vnfdId: 'no-such-vnfd' }, H2)).status).toBe(422);
  const before = await show(id, 'v2');
  const op = await modify(id, { vnfdId: otherVnfdId }, 'v2');
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const inst = await show(id, 'v2');
  expect([inst.vnfdId, inst.vnfPkgId, inst.vnfSoftwareVersion]).toEqual([otherVnfdId, otherPkgId, '2.0']);
  expect(op.changedInfo).toMatchObject({ vnfdId: otherVnfdId, vnfPkgId: otherPkgId, vnfSoftwareVersion: '2.0' });
  expect((await call('GET', `/vnfpkgm/v1/vnf_packages/${otherPkgId}`)).body.usageState).toBe('IN_USE');
  // back again: the package it left is used by no instance of this test any more
  expect((await modify(id, { vnfdId: before.vnfdId }, 'v2')).operationState).toBe('COMPLETED');
  expect((await call('GET', `/vnfpkgm/v1/vnf_packages/${otherPkgId}`)).body.usageState).toBe('NOT_IN_USE');
  // a DISABLED package is refused (422, as Tacker), and nothing is held
  expect((await call('PATCH', `/vnfpkgm/v1/vnf_packages/${otherPkgId}`, { operationalState: 'DISABLED' })).status).toBe(200);
  const disabled = await call('PATCH', `/vnflcm/v2/vnf_instances/${id}`, { vnfdId: otherVnfdId }, H2);
  expect([disabled.status, disabled.body.detail]).toEqual([422, expect.stringMatching(/DISABLED/)]);
  expect((await call('PATCH', `/vnfpkgm/v1/vnf_packages/${otherPkgId}`, { operationalState: 'ENABLED' })).status).toBe(200);
});

test('v2 vimConnectionInfo: merged by key on an instantiated instance; another VIM 422, the shared VIM with credentials 403, NOT_INSTANTIATED 409', async () => {
  const fresh = await newInstance();
  const vci = { vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3', extra: { area: 'x' } };
  expect((await call('PATCH', `/vnflcm/v2/vnf_instances/${fresh}`, { vimConnectionInfo: { k: vci } }, H2)).status).toBe(409);
  const id = await instantiated();
  const before = await show(id, 'v2');
  const [key] = Object.keys(before.vimConnectionInfo);
  const op = await modify(id, { vimConnectionInfo: { [key]: { vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3', extra: { area: 'tokyo' } } } }, 'v2');
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const after = (await show(id, 'v2')).vimConnectionInfo;
  expect(after[key]).toEqual({ ...before.vimConnectionInfo[key], extra: { area: 'tokyo' } });
  expect(op.changedInfo.vimConnectionInfo).toEqual({ [key]: after[key] });
  const moved = await call('PATCH', `/vnflcm/v2/vnf_instances/${id}`, { vimConnectionInfo: { [key]: { vimId: 'not-a-vim', vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3' } } }, H2);
  expect(moved.status).toBe(422);
  const inline = {
    vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3', interfaceInfo: { endpoint: 'http://127.0.0.1:5000/v3' },
    accessInfo: { username: 'admin', password: 'modify-secret-pw', project: 'admin' },
  };
  // the shared default VIM is read-only through LCM requests, for its own (admin) project too: neither a modify
  // nor an instantiate may rewrite the credentials every project's instances use
  const shared = await call('PATCH', `/vnflcm/v2/vnf_instances/${id}`, { vimConnectionInfo: { [key]: inline } }, H2);
  expect(shared.status).toBe(403);
  const defaultVimId = before.vimConnectionInfo[key].vimId;
  const viaInstantiate = await call('POST', `/vnflcm/v2/vnf_instances/${fresh}/instantiate`, { ...instantiateBody, vimConnectionInfo: { k: { ...inline, vimId: defaultVimId } } }, H2);
  expect(viaInstantiate.status).toBe(403);
  expect(JSON.stringify(await show(id, 'v2'))).not.toContain('modify-secret-pw');
  expect((await instantiated()).length).toBeGreaterThan(0); // the default VIM still logs in
});

test('refused with 409 while another operation on the instance is open, and accepted once it ended', async () => {
  const id = await newInstance();
  await addFault({ target: 'server', operation: 'create', mode: 'hang' });
  const inst = opIdFrom(await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, instantiateBody));
  await waitOpState(inst, ['PROCESSING']);
  const busy = await call('PATCH', `/vnflcm/v1/vnf_instances/${id}`, { vnfInstanceName: 'too soon' });
  expect(busy.status).toBe(409);
  expect(busy.body.detail).toContain(inst);
  await clearFaults();
  expect((await waitOpState(inst, ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
  expect((await show(id)).vnfInstanceName).toBe('before');
  expect((await modify(id, { vnfInstanceName: 'later' })).operationState).toBe('COMPLETED');
  expect((await show(id)).vnfInstanceName).toBe('later');
});

test('bad bodies are 400 naming the field; another project\'s instance is 404 and unchanged', async () => {
  const id = await newInstance();
  const bad = await call('PATCH', `/vnflcm/v1/vnf_instances/${id}`, { vnfInstanceName: 7, metadata: [1] });
  expect(bad.status).toBe(400);
  expect(bad.body.detail).toContain('vnfInstanceName');
  expect(bad.body.detail).toContain('metadata');
  expect((await call('PATCH', '/vnflcm/v1/vnf_instances/no-such-id', { vnfInstanceName: 'x' })).status).toBe(404);
  const stranger = await keystoneUser(`modify-other-${Date.now().toString(36)}`, `modify-user-${Date.now().toString(36)}`, 'member');
  const theirs = await call('PATCH', `/vnflcm/v1/vnf_instances/${id}`, { vnfInstanceName: 'hijacked' }, await stranger.headers());
  expect(theirs.status).toBe(404);
  await eventually('no op occ was recorded', async () => {
    const ops = (await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?vnfInstanceId=${id}`)).body;
    return ops.length === 0 ? true : undefined;
  }, 2000);
  expect((await show(id)).vnfInstanceName).toBe('before');
});

test('modify_information_start/_end hooks run around the write; a failing one parks the op in FAILED_TEMP, and rollback leaves the instance as it was', async () => {
  const ok = await instantiated(hookedVnfdId);
  expect((await modify(ok, { vnfInstanceName: 'hooked' })).error?.detail ?? 'COMPLETED').toBe('COMPLETED');
  expect((await show(ok)).vnfInstanceName).toBe('hooked');

  const id = await instantiated(hookedVnfdId, { fail_hook: 'modify_information_start' });
  const parked = await modify(id, { vnfInstanceName: 'never', metadata: { x: 1 } });
  expect(parked.operationState).toBe('FAILED_TEMP');
  expect(parked.error.detail).toMatch(/modify_information_start.*refused by the EM for MODIFY_INFO/s);
  expect(parked._links.rollback.href).toBe(`${apiUrl()}/vnflcm/v1/vnf_lcm_op_occs/${parked.id}/rollback`);
  expect((await call('PATCH', `/vnflcm/v1/vnf_instances/${id}`, { vnfInstanceName: 'meanwhile' })).status).toBe(409); // FAILED_TEMP holds the instance
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${parked.id}/rollback`)).status).toBe(202);
  const rolled = await waitOpState(parked.id, ['ROLLED_BACK', 'FAILED_TEMP']);
  expect(rolled.operationState).toBe('ROLLED_BACK');
  const inst = await show(id);
  expect([inst.vnfInstanceName, inst.metadata]).toEqual(['before', {}]);
});
