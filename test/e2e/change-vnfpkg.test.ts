/**
 * ChangeCurrentVnfPkg rolling update with coordination (seed 004) through the
 * API on the simulator, against the reference EM (em/) over HTTP. The worker
 * killed while an update is parked: test/disruptive/change-vnfpkg-worker-kill.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pinHostKey, pinnedHostKey } from '../../store/repos/host-keys';
import { certificateThumbprint } from '../../coord/client';
import { startEm, Em } from '../../em/server';
import { readState } from '../harness/state';
import { call, eventually, onboard, sim, temporalClient } from '../support/api';
import { changeRequest, changeVnfpkg, done, H, images, instantiated as instantiatedOf, onboardPair, samplePackage, V2 } from '../support/change-vnfpkg';
import { withProductStore } from '../support/product-store';
import { createTestCa } from '../support/tls';

let em: Em;
let oldVnfd: string;
let newVnfd: string;
let newPkgId: string;
let oldPkgId: string;

const vnfcParam = (tag: string, extra: Record<string, unknown> = {}) => ({
  cp_name: 'VDU1_CP1', username: 'ubuntu', password: 'vnfc-secret-pw', endpoint: em.url, timeout: 30, inputParams: { phase: tag }, ...extra,
});
const changeBody = (extra: Record<string, unknown> = {}, param: (tag: string) => unknown = (t) => vnfcParam(t)) => changeRequest(newVnfd, 'RollingUpdate', param, extra);
const instantiated = (level?: string) => instantiatedOf(oldVnfd, level);
const coordsOf = (opId: string) => em.coordinations().filter((c) => c.request.vnfLcmOpOccId === opId);

async function historyLength(workflowId: string): Promise<number> {
  const client = await temporalClient();
  try {
    return (await client.workflow.getHandle(workflowId).describe()).historyLength;
  } finally {
    await client.connection.close();
  }
}

/** Pins a host key for these VNFCs in the product's store, as a Mgmt Driver would have learned them. */
const pinKeys = (vnfcIds: string[]) => withProductStore(async (store) => {
  for (const id of vnfcIds) await pinHostKey(store, id, 'SHA256:learned-before');
});
const pinnedKey = (vnfcId: string) => withProductStore((store) => pinnedHostKey(store, vnfcId));

beforeAll(async () => {
  em = await startEm({});
  ({ oldVnfd, newVnfd, oldPkgId, newPkgId } = await onboardPair());
});
afterAll(() => em.close());
beforeEach(() => em.setBehaviour({ mode: 'sync', result: 'CONTINUE' }));

test('rolling update: newest VNFC first across VDUs, each coordinated after its own update; package states move', async () => {
  const id = await instantiated('instantiation_level_2');
  expect(await images(id)).toEqual({ 'VDU1-0': 'two_vdu_vnf-image', 'VDU1-1': 'two_vdu_vnf-image', 'VDU1-2': 'two_vdu_vnf-image' });
  const vnfcsBefore: any[] = (await call('GET', `${V2}/vnf_instances/${id}`)).body.instantiatedVnfInfo.vnfcResourceInfo;
  const hostKey = async (serverId: string) => (await sim<any>('GET', `/sim/servers/${serverId}`)).ssh.hostKeyFingerprint;
  const keysBefore = Object.fromEntries(await Promise.all(vnfcsBefore.map(async (v) => [v.id, await hostKey(v.computeResource.resourceId)])));
  await pinKeys(vnfcsBefore.map((v) => v.id));
  const opId = await changeVnfpkg(id, changeBody());
  const op = await done(opId);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const inst = (await call('GET', `${V2}/vnf_instances/${id}`)).body;
  // image_update_policy REBUILD: same servers with a new disk, so new host keys, which the product re-learns
  for (const v of vnfcsBefore.filter((x) => x.vduId === 'VDU1')) {
    const now = inst.instantiatedVnfInfo.vnfcResourceInfo.find((x: any) => x.id === v.id);
    expect(now.computeResource.resourceId).toBe(v.computeResource.resourceId);
    expect(await hostKey(v.computeResource.resourceId)).not.toBe(keysBefore[v.id]);
    expect(await pinnedKey(v.id)).toBeUndefined();
  }
  const order = coordsOf(opId).map((c) => c.request.inputParams?.vnfcInstanceId);
  const byName = Object.fromEntries(inst.instantiatedVnfInfo.vnfcResourceInfo.map((v: any) => [v.metadata.heatResourceName, v.id]));
  expect(order).toEqual([byName['VDU1-2'], byName['VDU1-1'], byName['VDU1-0'], byName['VDU2-0']]);
  expect(coordsOf(opId).every((c) => c.request.lcmOperationType === 'CHANGE_VNFPKG' && c.request.coordinationActionName === 'prv.tacker_organization.coordination_test')).toBe(true);
  expect(Object.values(await images(id)).every((i) => i === 'two_vdu_vnf-image-v2')).toBe(true);
  expect(inst.vnfdId).toBe(newVnfd);
  expect(inst.vnfSoftwareVersion).toBe('2.0');
  expect(op.lcmCoordinations.map((c: any) => c.coordinationResult)).toEqual(['CONTINUE', 'CONTINUE', 'CONTINUE', 'CONTINUE']);
  expect(op.changedInfo.vnfdId).toBe(newVnfd);
  expect((await call('GET', `/vnfpkgm/v1/vnf_packages/${newPkgId}`)).body.usageState).toBe('IN_USE');
  expect(JSON.stringify(op)).not.toContain('vnfc-secret-pw');
  // The op workflow sees one chunk child, not one child per VNFC: its history does not grow with N.
  const client = await temporalClient();
  try {
    const events = (await client.workflow.getHandle(opId).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.childWorkflowExecutionStartedEventAttributes).length).toBe(1);
    const chunk = events.find((e) => e.childWorkflowExecutionStartedEventAttributes)!.childWorkflowExecutionStartedEventAttributes!.workflowExecution!.workflowId!;
    const chunkEvents = (await client.workflow.getHandle(chunk).fetchHistory()).events ?? [];
    expect(chunkEvents.filter((e) => e.childWorkflowExecutionStartedEventAttributes).length).toBe(4);
    expect(JSON.stringify(chunkEvents)).not.toContain('vnfc-secret-pw');
  } finally {
    await client.connection.close();
  }
});

test('ABORT stops after the first VNFC (updated, the others not) -> FAILED_TEMP -> retry completes', async () => {
  const id = await instantiated();
  em.setBehaviour({ mode: 'sync', result: 'ABORT' });
  const opId = await changeVnfpkg(id, changeBody());
  const failed = await done(opId);
  expect(failed.operationState).toBe('FAILED_TEMP');
  expect(failed.error.detail).toMatch(/ended ABORT/);
  expect(await images(id)).toEqual({ 'VDU1-0': 'two_vdu_vnf-image-v2' });
  expect(failed.currentStep).toMatch(/^coordinate VDU1-0/); // VDU2-0 was never touched
  em.setBehaviour({ mode: 'sync', result: 'CONTINUE' });
  expect((await call('POST', `${V2}/vnf_lcm_op_occs/${opId}/retry`, undefined, H)).status).toBe(202);
  expect((await done(opId)).operationState).toBe('COMPLETED');
  expect(Object.values(await images(id)).every((i) => i === 'two_vdu_vnf-image-v2')).toBe(true);
});

test('busy (503 + Retry-After) then sync: the same request is sent again and the rejections are recorded', async () => {
  const id = await instantiated();
  em.setBehaviour({ mode: 'busy', times: 2, retryAfter: '1', then: { mode: 'sync', result: 'CONTINUE' } });
  const op = await done(await changeVnfpkg(id, changeBody()));
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  expect(op.rejectedLcmCoordinations.length).toBeGreaterThanOrEqual(2);
  expect(op.rejectedLcmCoordinations[0].delay).toBe(1);
  expect(coordsOf(op.id)[0].posts).toBe(3);
});

test('async (202 + Location): polled until decided', async () => {
  const id = await instantiated();
  em.setBehaviour({ mode: 'async', result: 'CONTINUE', polls: 2, retryAfter: '1' });
  const op = await done(await changeVnfpkg(id, changeBody()));
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  for (const c of coordsOf(op.id)) {
    expect(c.posts).toBe(1);
    expect(c.gets).toBeGreaterThanOrEqual(2);
  }
});

test('timeout: FAILED_TEMP and the EM saw the coordination cancelled', async () => {
  const id = await instantiated();
  em.setBehaviour({ mode: 'hang', retryAfter: '1' });
  const op = await done(await changeVnfpkg(id, changeBody({}, (t) => vnfcParam(t, { timeout: 3 }))));
  expect(op.operationState).toBe('FAILED_TEMP');
  expect(op.error.detail).toMatch(/did not finish within 3 s/);
  expect(coordsOf(op.id)[0].cancelled).toBe(true);
  expect((await call('POST', `${V2}/vnf_lcm_op_occs/${op.id}/fail`, undefined, H)).body.operationState).toBe('FAILED');
});

test('operator cancel during an async wait cancels the coordination on the EM -> FAILED_TEMP; rollback restores the old image', async () => {
  const id = await instantiated();
  em.setBehaviour({ mode: 'hang', retryAfter: '1' });
  const opId = await changeVnfpkg(id, changeBody());
  await eventually('coordination pending on the EM', async () => (coordsOf(opId).some((c) => c.state === 'PENDING') ? true : undefined));
  expect((await call('GET', `${V2}/vnf_lcm_op_occs/${opId}`)).body.currentStep).toMatch(/^coordinate VDU1-0/);
  // Parked, the VNFC's run does not wake (so the worker may evict it): its history stays as it is while the EM is polled.
  const parkedLength = await historyLength(`${opId}/update-0-1/update-VDU1-0`);
  const gets = coordsOf(opId)[0].gets;
  await eventually('the EM polled three more times', async () => (coordsOf(opId)[0].gets >= gets + 3 ? true : undefined), 20_000);
  expect(await historyLength(`${opId}/update-0-1/update-VDU1-0`)).toBe(parkedLength);
  expect((await call('POST', `${V2}/vnf_lcm_op_occs/${opId}/cancel`, { cancelMode: 'GRACEFUL' }, H)).status).toBe(202);
  const op = await done(opId, ['FAILED_TEMP']);
  expect(op.error.detail).toMatch(/cancelled \(GRACEFUL\)/);
  expect(coordsOf(opId)[0].cancelled).toBe(true);

  em.setBehaviour({ mode: 'sync', result: 'CONTINUE' });
  expect((await call('POST', `${V2}/vnf_lcm_op_occs/${opId}/rollback`, undefined, H)).status).toBe(202);
  const rolled = await done(opId, ['ROLLED_BACK', 'FAILED_TEMP']);
  expect(rolled.error?.detail ?? rolled.operationState).toBe('ROLLED_BACK');
  expect(Object.values(await images(id)).every((i) => i === 'two_vdu_vnf-image')).toBe(true);
  const rollbackCoords = coordsOf(opId).filter((c) => c.request.inputParams?.phase === 'old');
  expect(rollbackCoords.map((c) => c.result)).toEqual(['CONTINUE']); // only VDU1-0 had moved
  expect((await call('GET', `${V2}/vnf_instances/${id}`)).body.vnfdId).toBe(oldVnfd);
});

test('the seed\'s request naming ./Scripts/coordinate_vnf.py works unchanged; changing back restores the old package', async () => {
  const id = await instantiated();
  const opId = await changeVnfpkg(id, changeBody({ 'lcm-operation-coordinate-old-vnf': './Scripts/coordinate_vnf.py', 'lcm-operation-coordinate-new-vnf': './Scripts/coordinate_vnf.py' }));
  // the seed's script name maps to the built-in coordination action
  const op = await done(opId);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  expect(coordsOf(opId)).toHaveLength(2);
  const back = await changeVnfpkg(id, { ...changeBody(), vnfdId: oldVnfd });
  expect((await done(back)).operationState).toBe('COMPLETED');
  expect(Object.values(await images(id)).every((i) => i === 'two_vdu_vnf-image')).toBe(true);
  expect((await call('GET', `/vnfpkgm/v1/vnf_packages/${oldPkgId}`)).body.usageState).toBe('IN_USE');
});

test('a hanging coordinate script is killed at its timeout', async () => {
  const hang = Buffer.from('#!/usr/bin/env node\nsetInterval(() => {}, 1000);\n');
  const pkg = samplePackage('2.0', { 'Scripts/coord_hang.js': hang });
  expect((await onboard(pkg.zip)).onboardingState).toBe('ONBOARDED');
  const id = await instantiated();
  const body = { ...changeBody({ 'lcm-operation-coordinate-new-vnf': 'Scripts/coord_hang.js' }, (t) => vnfcParam(t, { timeout: 2 })), vnfdId: pkg.vnfdId };
  const op = await done(await changeVnfpkg(id, body));
  expect(op.operationState).toBe('FAILED_TEMP');
  expect(op.error.detail).toMatch(/coord_hang\.js did not finish within 2 s and was killed/);
});

test('refusals: unknown vnfdId 422, NOT_INSTANTIATED 409, v1 404, bad params 400', async () => {
  const id = await instantiated();
  expect((await call('POST', `${V2}/vnf_instances/${id}/change_vnfpkg`, { ...changeBody(), vnfdId: 'nope' }, H)).status).toBe(422);
  const bad = await call('POST', `${V2}/vnf_instances/${id}/change_vnfpkg`, changeBody({}, (t) => ({ ...vnfcParam(t), cp_name: undefined, timeout: -1 })), H);
  expect(bad.status).toBe(400);
  expect(bad.body.detail).toContain('additionalParams.vdu_params[0].old_vnfc_param.cp_name');
  expect((await call('POST', `/vnflcm/v1/vnf_instances/${id}/change_vnfpkg`, changeBody())).status).toBe(404);
  const fresh = (await call('POST', `${V2}/vnf_instances`, { vnfdId: oldVnfd }, H)).body.id;
  expect((await call('POST', `${V2}/vnf_instances/${fresh}/change_vnfpkg`, changeBody(), H)).status).toBe(409);
});

describe('coordination over TLS with each auth mode', () => {
  const ca = createTestCa();
  const server = ca.issueServer({ ips: ['127.0.0.1'] });
  const client = ca.issueClient('orchestrator');
  let tlsEm: Em; // TLS with our CA; Basic and client-credentials tokens
  let mtlsEm: Em; // mutual TLS; tokens bound to the client certificate
  const coordDir = () => path.join(readState().dataDir, 'coord');

  beforeAll(async () => {
    fs.mkdirSync(coordDir(), { recursive: true });
    fs.writeFileSync(path.join(coordDir(), 'ca.pem'), ca.cert);
    fs.writeFileSync(path.join(coordDir(), 'client.pem'), client.cert);
    fs.writeFileSync(path.join(coordDir(), 'client-key.pem'), client.key);
    tlsEm = await startEm({
      auth: {
        tls: { cert: server.cert, key: server.key },
        basic: { userName: 'em-user', password: 'em-basic-pw' },
        oauth2: { clients: [{ clientId: 'orchestrator', clientSecret: 'em-client-secret' }] },
      },
    });
    mtlsEm = await startEm({
      auth: { tls: { cert: server.cert, key: server.key, ca: ca.cert, requestClientCert: true }, oauth2: { clients: [{ clientId: 'orchestrator' }] } },
    });
  });
  afterAll(async () => { await tlsEm.close(); await mtlsEm.close(); });

  const emFor = (auth: any) => (auth.authType.includes('OAUTH2_CLIENT_CERT') ? mtlsEm : tlsEm);
  const run = async (authentication: any) =>
    done(await changeVnfpkg(await instantiated(), changeBody({}, (t) => vnfcParam(t, { endpoint: emFor(authentication).url, authentication }))));

  test.each([
    ['BASIC', { authType: ['BASIC'], paramsBasic: { userName: 'em-user', password: 'em-basic-pw' } }, 'Basic'],
    ['OAUTH2_CLIENT_CREDENTIALS', { authType: ['OAUTH2_CLIENT_CREDENTIALS'], paramsOauth2ClientCredentials: { clientId: 'orchestrator', clientPassword: 'em-client-secret', tokenEndpoint: '' } }, 'Bearer'],
    ['OAUTH2_CLIENT_CERT', { authType: ['BASIC', 'OAUTH2_CLIENT_CERT'], paramsBasic: { userName: 'x', password: 'y' }, paramsOauth2ClientCert: { clientId: 'orchestrator', certificateRef: { type: 'x5t#S256', value: '' }, tokenEndpoint: '' } }, 'Bearer'],
  ])('%s', async (_mode, auth: any, scheme) => {
    const em = emFor(auth);
    if (auth.paramsOauth2ClientCredentials) auth.paramsOauth2ClientCredentials.tokenEndpoint = em.tokenEndpoint;
    if (auth.paramsOauth2ClientCert) {
      auth.paramsOauth2ClientCert.tokenEndpoint = em.tokenEndpoint;
      auth.paramsOauth2ClientCert.certificateRef.value = certificateThumbprint(client.cert);
    }
    const before = em.requests().length;
    const op = await run(auth);
    expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
    const seen = em.requests().slice(before).filter((r) => r.path.startsWith('/lcmcoord'));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.authorization === scheme)).toBe(true);
    expect(JSON.stringify(op)).not.toMatch(/em-basic-pw|em-client-secret/);
  });

  test('a wrong certificate thumbprint is refused before any call', async () => {
    const before = mtlsEm.requests().length;
    const op = await run({ authType: ['OAUTH2_CLIENT_CERT'], paramsOauth2ClientCert: { clientId: 'orchestrator', certificateRef: { type: 'x5t#S256', value: 'AAAAwrongthumbprint' }, tokenEndpoint: mtlsEm.tokenEndpoint } });
    expect(op.operationState).toBe('FAILED_TEMP');
    expect(op.error.detail).toMatch(/thumbprint|certificateRef/i);
    expect(mtlsEm.requests().length).toBe(before);
  });
});
