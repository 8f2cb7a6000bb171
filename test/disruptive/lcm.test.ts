/**
 * VNF LCM end to end through the real API, the real worker on a real Temporal
 * dev server, and the VIM simulator over Keystone/Heat HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SA_LCM_OPERATION } from '../../common/search-attributes';
import { sampleVariant } from '../../samples/variant';
import { readState } from '../harness/state';
import { addFault, apiUrl, call, clearFaults, UNTIL_CLEARED, eventually, heatResources, onboard, opIdFrom, stacksNamed, temporalClient, waitOpState } from '../support/api';
import { killWorker, restartWorker } from '../support/worker-control';
import { workflowHistoryText } from '../support/history-text';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const EXT_NET = 'f0c82461-36b5-4d86-8322-b0bc19cda65f';

let vnfdId: string;

const instantiateBody = (level = 'instantiation_level_1') => ({
  flavourId: 'simple',
  instantiationLevelId: level,
  extVirtualLinks: [{
    id: 'net0', resourceId: EXT_NET,
    extCps: [
      { cpdId: 'VDU1_CP1', cpConfig: [{ cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] }] },
      { cpdId: 'VDU2_CP1', cpConfig: [{ cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] }] },
    ],
  }],
  additionalParams: { note: 'test', ssh_password: 'hunter2-secret' },
});

async function newInstance(v = 'v1'): Promise<string> {
  const r = await call('POST', `/vnflcm/${v}/vnf_instances`, { vnfdId, vnfInstanceName: 'lcm-test' });
  expect(r.status).toBe(201);
  expect(r.headers.get('location')).toContain(`/vnflcm/${v}/vnf_instances/${r.body.id}`);
  expect(r.body.instantiationState).toBe('NOT_INSTANTIATED');
  return r.body.id;
}

async function startInstantiate(id: string, level?: string, v = 'v1'): Promise<string> {
  const r = await call('POST', `/vnflcm/${v}/vnf_instances/${id}/instantiate`, instantiateBody(level));
  expect(r.status).toBe(202);
  expect(r.text).toBe('');
  return opIdFrom(r);
}

/** Server creates/deletes fail or hang in Nova until Heat gives up; Heat reports it on the stack. */
async function fault(operation: 'create' | 'delete', mode: 'fail' | 'hang', message = 'injected by test') {
  return addFault({ target: 'server', operation, mode, message, times: mode === 'fail' && operation === 'create' ? UNTIL_CLEARED : 1 });
}

beforeAll(async () => {
  const pkg = await onboard(sampleVariant(SAMPLE).zip); // a vnfdId of its own: a project onboards one once
  expect(pkg.onboardingState).toBe('ONBOARDED');
  vnfdId = pkg.vnfdId;
});

afterEach(async () => {
  await clearFaults();
});

test('instantiate builds instantiatedVnfInfo from the stack; terminate removes it', async () => {
  const id = await newInstance();
  const opId = await startInstantiate(id, 'instantiation_level_2');
  const op = await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP']);
  expect(op.error).toBeUndefined();
  expect(op.operationState).toBe('COMPLETED');
  expect(op.operation).toBe('INSTANTIATE');
  expect(op._links.temporalWorkflow.href).toContain(`/workflows/${opId}`);
  // SOL013 links are absolute URIs on API_BASE_URL, as Tacker gives them
  expect(op._links.self.href).toBe(`${apiUrl()}/vnflcm/v1/vnf_lcm_op_occs/${opId}`);
  expect(op._links.vnfInstance.href).toBe(`${apiUrl()}/vnflcm/v1/vnf_instances/${id}`);
  expect(JSON.stringify(op)).not.toContain('hunter2-secret');

  const inst = (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body;
  expect(inst.instantiationState).toBe('INSTANTIATED');
  const info = inst.instantiatedVnfInfo;
  expect(info.flavourId).toBe('simple');
  expect(info.vnfState).toBe('STARTED');
  const vdus = info.vnfcResourceInfo.map((v: any) => v.vduId).sort();
  const level2Vdu1 = vdus.filter((d: string) => d === 'VDU1').length;
  expect(level2Vdu1).toBeGreaterThan(1);
  expect(vdus).toContain('VDU2');
  expect(info.vnfcInfo).toHaveLength(info.vnfcResourceInfo.length);
  expect(info.scaleStatus).toEqual([{ aspectId: 'VDU1_scale', scaleLevel: 2 }]);
  expect(info.extVirtualLinkInfo[0].resourceHandle.resourceId).toBe(EXT_NET);
  expect(info.extCpInfo.length).toBeGreaterThanOrEqual(2);
  expect(info.vnfVirtualLinkResourceInfo.length).toBeGreaterThanOrEqual(1);
  expect(info.additionalParams.ssh_password).not.toBe('hunter2-secret');
  expect(inst._links.terminate.href).toBe(`${apiUrl()}/vnflcm/v1/vnf_instances/${id}/terminate`);
  expect(inst._links.changeExtConn.href).toBe(`${apiUrl()}/vnflcm/v1/vnf_instances/${id}/change_ext_conn`);
  const pkg = (await call('GET', `/vnfpkgm/v1/vnf_packages/${inst.vnfPkgId}`)).body;
  expect(pkg._links).toEqual({
    self: { href: `${apiUrl()}/vnfpkgm/v1/vnf_packages/${inst.vnfPkgId}` },
    vnfd: { href: `${apiUrl()}/vnfpkgm/v1/vnf_packages/${inst.vnfPkgId}/vnfd` },
    packageContent: { href: `${apiUrl()}/vnfpkgm/v1/vnf_packages/${inst.vnfPkgId}/package_content` },
  });

  // computeResource.resourceId is the Nova server's physical id in the VIM.
  const stacks = await stacksNamed(`vnf-${id}`);
  expect(stacks).toHaveLength(1);
  expect(stacks[0].status).toBe('CREATE_COMPLETE');
  const servers = (await heatResources(`vnf-${id}`, stacks[0].id)).filter((r) => r.resource_type === 'OS::Nova::Server');
  expect(servers.length).toBe(info.vnfcResourceInfo.length);
  expect(info.vnfcResourceInfo.map((v: any) => v.computeResource.resourceId).sort())
    .toEqual(servers.map((s) => s.physical_resource_id).sort());

  // A second instantiate is refused while instantiated.
  expect((await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, instantiateBody())).status).toBe(409);
  // And the instance cannot be deleted.
  expect((await call('DELETE', `/vnflcm/v1/vnf_instances/${id}`)).status).toBe(409);

  const t = await call('POST', `/vnflcm/v1/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' });
  expect(t.status).toBe(202);
  const top = await waitOpState(opIdFrom(t), ['COMPLETED', 'FAILED_TEMP']);
  expect(top.operationState).toBe('COMPLETED');
  const after = (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body;
  expect(after.instantiationState).toBe('NOT_INSTANTIATED');
  expect(after.instantiatedVnfInfo).toBeUndefined();
  expect((await stacksNamed(`vnf-${id}`)).every((s) => s.status === 'DELETE_COMPLETE')).toBe(true);
  expect((await call('DELETE', `/vnflcm/v1/vnf_instances/${id}`)).status).toBe(204);
  expect((await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).status).toBe(404);
});

test('op occs can be listed and filtered', async () => {
  const all = (await call('GET', '/vnflcm/v1/vnf_lcm_op_occs')).body;
  expect(all.length).toBeGreaterThanOrEqual(2);
  const done = (await call('GET', '/vnflcm/v1/vnf_lcm_op_occs?filter=(eq,operation,TERMINATE)')).body;
  expect(done.length).toBeGreaterThanOrEqual(1);
  expect(done.every((o: any) => o.operation === 'TERMINATE')).toBe(true);
  const byState = (await call('GET', '/vnflcm/v1/vnf_lcm_op_occs?operationState=COMPLETED')).body;
  expect(byState.every((o: any) => o.operationState === 'COMPLETED')).toBe(true);
  expect((await call('GET', '/vnflcm/v1/vnf_lcm_op_occs?filter=(bogus,operation,X)')).status).toBe(400);
  // SOL003: a list leaves out operationParams, error, resourceChanges, changedInfo… unless asked
  const excluded = ['operationParams', 'error', 'resourceChanges', 'changedInfo', 'changedExtConnectivity'];
  expect(all.flatMap((o: any) => Object.keys(o)).filter((k: string) => excluded.includes(k))).toEqual([]);
  const full = (await call('GET', '/vnflcm/v1/vnf_lcm_op_occs?filter=(eq,operation,TERMINATE)&all_fields')).body;
  expect(full.length).toBeGreaterThanOrEqual(1);
  expect(full.every((o: any) => o.operationParams?.terminationType !== undefined)).toBe(true);
  const instances = (await call('GET', '/vnflcm/v1/vnf_instances')).body;
  expect(instances.flatMap((i: any) => Object.keys(i)).filter((k: string) => ['instantiatedVnfInfo', 'vimConnectionInfo', 'metadata'].includes(k))).toEqual([]);
  const withInfo = (await call('GET', '/vnflcm/v1/vnf_instances?filter=(eq,instantiationState,INSTANTIATED)&fields=instantiatedVnfInfo')).body;
  expect(withInfo.every((i: any) => i.instantiatedVnfInfo?.flavourId && i.vimConnectionInfo === undefined)).toBe(true);
});

test('injected stack failure -> FAILED_TEMP with the Heat reason -> retry -> COMPLETED', async () => {
  const id = await newInstance('v2');
  await fault('create', 'fail', 'No valid host was found');
  const opId = await startInstantiate(id, undefined, 'v2');
  const failed = await waitOpState(opId, ['FAILED_TEMP', 'COMPLETED'], 60_000, 'v2');
  expect(failed.operationState).toBe('FAILED_TEMP');
  expect(failed.error.detail).toContain('No valid host was found');
  expect(failed.error.detail).toContain('create stack');
  expect(failed._links.retry).toBeDefined();

  // A new operation on the instance is refused while this one is FAILED_TEMP.
  const other = await call('POST', `/vnflcm/v2/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' }, { Version: '2.0.0' });
  expect(other.status).toBe(409);
  expect(other.headers.get('content-type')).toContain('application/problem+json');

  await clearFaults(); // the operator fixed the cloud
  const retry = await call('POST', `/vnflcm/v2/vnf_lcm_op_occs/${opId}/retry`, undefined, { Version: '2.0.0' });
  expect(retry.status).toBe(202);
  const done = await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], 60_000, 'v2');
  expect(done.error?.detail ?? done.operationState).toBe('COMPLETED');
  const live = (await stacksNamed(`vnf-${id}`)).filter((s) => s.status !== 'DELETE_COMPLETE');
  expect(live).toHaveLength(1);
  // retry of a COMPLETED op is a conflict
  expect((await call('POST', `/vnflcm/v2/vnf_lcm_op_occs/${opId}/retry`)).status).toBe(409);
});

test('rollback of a failed instantiate deletes the stack -> ROLLED_BACK', async () => {
  const id = await newInstance();
  await fault('create', 'fail');
  const opId = await startInstantiate(id);
  expect((await waitOpState(opId, ['FAILED_TEMP', 'COMPLETED'])).operationState).toBe('FAILED_TEMP');
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/rollback`)).status).toBe(202);
  const op = await waitOpState(opId, ['ROLLED_BACK', 'FAILED_TEMP']);
  expect(op.operationState).toBe('ROLLED_BACK');
  const stacks = await stacksNamed(`vnf-${id}`);
  expect(stacks.length).toBeGreaterThan(0);
  expect(stacks.every((s) => s.status === 'DELETE_COMPLETE')).toBe(true);
  const inst = (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body;
  expect(inst.instantiationState).toBe('NOT_INSTANTIATED');
});

test('fail ends a FAILED_TEMP op in FAILED and answers with the op occ', async () => {
  const id = await newInstance();
  await fault('create', 'fail');
  const opId = await startInstantiate(id);
  expect((await waitOpState(opId, ['FAILED_TEMP', 'COMPLETED'])).operationState).toBe('FAILED_TEMP');
  const r = await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/fail`);
  expect(r.status).toBe(200);
  expect(r.body.operationState).toBe('FAILED');
  expect(r.body.id).toBe(opId);
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/rollback`)).status).toBe(409);
});

test('FORCEFUL cancel during a hanging stack create -> FAILED_TEMP, then rollback leaves nothing', async () => {
  const id = await newInstance();
  await fault('create', 'hang');
  const opId = await startInstantiate(id);
  await eventually('stack create in progress', async () => {
    const s = await stacksNamed(`vnf-${id}`);
    return s.some((x) => x.status === 'CREATE_IN_PROGRESS') ? true : undefined;
  });
  const processing = (await call('GET', `/vnflcm/v1/vnf_lcm_op_occs/${opId}`)).body;
  expect(processing.operationState).toBe('PROCESSING');
  expect(processing.currentStep).toBe('create stack');
  expect(processing._links.cancel).toBeDefined();
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/cancel`, { cancelMode: 'SOMETIMES' })).status).toBe(400);
  const c = await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/cancel`, { cancelMode: 'FORCEFUL' });
  expect(c.status).toBe(202);
  const op = await waitOpState(opId, ['FAILED_TEMP'], 30_000);
  expect(op.error.detail).toMatch(/cancelled \(FORCEFUL\)/);
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/cancel`, { cancelMode: 'FORCEFUL' })).status).toBe(409);
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/rollback`)).status).toBe(202);
  expect((await waitOpState(opId, ['ROLLED_BACK', 'FAILED_TEMP'])).operationState).toBe('ROLLED_BACK');
  expect((await stacksNamed(`vnf-${id}`)).every((s) => s.status === 'DELETE_COMPLETE')).toBe(true);
});

test('kill -9 of the worker mid-instantiate: a new worker completes it with exactly one stack', async () => {
  const id = await newInstance();
  await fault('create', 'hang');
  const opId = await startInstantiate(id);
  await eventually('stack create in progress', async () => ((await stacksNamed(`vnf-${id}`)).length ? true : undefined));
  killWorker();
  await clearFaults(); // Heat finishes the create while no worker runs
  restartWorker();
  const op = await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], 120_000);
  expect(op.operationState).toBe('COMPLETED');
  expect(await stacksNamed(`vnf-${id}`)).toHaveLength(1);
  const inst = (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body;
  expect(inst.instantiationState).toBe('INSTANTIATED');
});

describe('bad input answers 4xx ProblemDetails and writes nothing', () => {
  test('malformed JSON', async () => {
    const r = await call('POST', '/vnflcm/v1/vnf_instances', '{"vnfdId": ');
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.status).toBe(400);
    expect(r.body.detail).toMatch(/not valid JSON/);
  });

  test('schema violations name the field path', async () => {
    const id = await newInstance();
    const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, {
      flavourId: 'simple', extVirtualLinks: [{ id: 'net0', resourceId: 'x', extCps: [{ cpConfig: [] }] }],
    });
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain('extVirtualLinks[0].extCps[0].cpdId');
    const t = await call('POST', `/vnflcm/v1/vnf_instances/${id}/terminate`, { terminationType: 'SOFTLY' });
    expect(t.status).toBe(400);
    expect(t.body.detail).toContain('terminationType');
    const unknownFlavour = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, { ...instantiateBody(), flavourId: 'huge' });
    expect(unknownFlavour.status).toBe(400);
    expect(unknownFlavour.body.detail).toContain('flavourId');
    const unknownLevel = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, instantiateBody('level_9'));
    expect(unknownLevel.status).toBe(400);
    expect(unknownLevel.body.detail).toContain('instantiationLevelId');
    const ops = (await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?vnfInstanceId=${id}`)).body;
    expect(ops).toEqual([]);
    expect(await stacksNamed(`vnf-${id}`)).toEqual([]);
  });

  test('unknown ids and wrong API version', async () => {
    expect((await call('GET', '/vnflcm/v1/vnf_instances/nope')).status).toBe(404);
    expect((await call('GET', '/vnflcm/v1/vnf_lcm_op_occs/nope')).status).toBe(404);
    expect((await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: 'no-such-vnfd' })).status).toBe(422);
    const v = await call('GET', '/vnflcm/v2/vnf_instances', undefined, { Version: '1.3.0' });
    expect(v.status).toBe(406);
    const ok = await call('GET', '/vnflcm/v2/api_versions');
    expect(ok.headers.get('version')).toBe('2.0.0');
    expect(ok.body.apiVersions[0].version).toBe('2.0.0');
    expect((await call('GET', '/vnflcm/v1/api_versions')).body.uriPrefix).toBe('/vnflcm/v1');
  });
});

test('GRACEFUL cancel lets the running stack create finish, then stops before the next step', async () => {
  const id = await newInstance();
  await fault('create', 'hang');
  const opId = await startInstantiate(id);
  await eventually('stack create in progress', async () => ((await stacksNamed(`vnf-${id}`)).length ? true : undefined));
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/cancel`, { cancelMode: 'GRACEFUL' })).status).toBe(202);
  const pending = (await call('GET', `/vnflcm/v1/vnf_lcm_op_occs/${opId}`)).body;
  expect(pending.operationState).toBe('PROCESSING');
  expect(pending.isCancelPending).toBe(true);
  expect(pending.cancelMode).toBe('GRACEFUL');
  await clearFaults(); // the VIM operation finishes on its own
  const op = await waitOpState(opId, ['FAILED_TEMP', 'COMPLETED']);
  expect(op.operationState).toBe('FAILED_TEMP');
  expect(op.isCancelPending).toBe(false);
  expect(op.error.detail).toMatch(/cancelled \(GRACEFUL\) before step "record instantiatedVnfInfo"/);
  expect((await stacksNamed(`vnf-${id}`))[0].status).toBe('CREATE_COMPLETE');
  // retry carries on from where it stopped
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/retry`)).status).toBe(202);
  expect((await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
});

test('GRACEFUL terminate waits gracefulTerminationTimeout, deletion cannot be rolled back', async () => {
  const id = await newInstance();
  expect((await waitOpState(await startInstantiate(id), ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
  await fault('delete', 'fail', 'volume busy');
  const t = await call('POST', `/vnflcm/v1/vnf_instances/${id}/terminate`, { terminationType: 'GRACEFUL', gracefulTerminationTimeout: 1 });
  expect(t.status).toBe(202);
  const opId = opIdFrom(t);
  const early = (await call('GET', `/vnflcm/v1/vnf_lcm_op_occs/${opId}`)).body;
  expect(early.operationParams).toEqual({ terminationType: 'GRACEFUL', gracefulTerminationTimeout: 1 });
  const failed = await waitOpState(opId, ['FAILED_TEMP', 'COMPLETED']);
  expect(failed.operationState).toBe('FAILED_TEMP');
  expect(failed.error.detail).toContain('volume busy');
  const rb = await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/rollback`);
  expect(rb.status).toBe(422);
  expect(rb.body.detail).toMatch(/cannot roll back/);
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/retry`)).status).toBe(202);
  expect((await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
  expect((await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body.instantiationState).toBe('NOT_INSTANTIATED');
});

test('each op is a workflow of its own type with a readable summary and typed search attributes for the Web UI', async () => {
  const id = await newInstance();
  const opId = await startInstantiate(id);
  await waitOpState(opId, ['COMPLETED']);
  const vim = (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body.vimConnectionInfo;
  const vimId = (Array.isArray(vim) ? vim[0] : Object.values(vim)[0] as any).vimId;
  const client = await temporalClient();
  try {
    const described = await client.workflow.getHandle(opId).describe();
    expect(described.type).toBe('instantiate');
    expect(await described.staticSummary()).toBe(`Instantiate lcm-test (${id}) flavour simple, level instantiation_level_1 on VIM ${vimId}`);
    const details = await described.staticDetails();
    expect(details).toContain(`**Op occ** ${opId}`);
    expect(details).toContain('"flavourId": "simple"');
    expect(details).not.toContain('hunter2-secret'); // the request as recorded: secrets masked
    const found = await eventually('visibility to catch up', async () => {
      const list = [];
      for await (const w of client.workflow.list({ query: `VnfInstanceId = "${id}" AND LcmOperationState = "COMPLETED"` })) list.push(w);
      return list.length ? list : undefined;
    }, 30_000, 500);
    expect(found.map((w) => w.workflowId)).toEqual([opId]);
    expect(found[0].typedSearchAttributes.get(SA_LCM_OPERATION)).toBe('INSTANTIATE');
  } finally {
    await client.connection.close();
  }
});

test('secrets never reach the op occ, the API output, the logs or the workflow history', async () => {
  // Secret-looking values of every kind: a key-named one, an array under a secret key, proxy URLs with a "/" and an "@" in the password.
  const secrets = ['hunter2-secret', 'apikey-secret-7', 'pa/ss-secret', 'p@ss-secret2', 'ss-secret2'];
  const id = await newInstance();
  const body = instantiateBody();
  body.additionalParams = {
    ...body.additionalParams, api_key: ['apikey-secret-7'],
    vendor: { http_proxy: 'http://user1:pa/ss-secret@host1:3128', https_proxy: 'https://user2:p@ss-secret2@host2:3128', region_hint: 'visible-marker-31' },
  } as typeof body.additionalParams;
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, body);
  expect(r.status).toBe(202);
  const opId = opIdFrom(r);
  await waitOpState(opId, ['COMPLETED']);
  const history = await workflowHistoryText(opId);
  expect(history.events).toBeGreaterThan(10);
  expect(history.payloads).toBeGreaterThan(5);
  // positive control: the decoder reads payload bytes (the workflow's input names the instance inside its JSON data)
  expect(history.text).toContain(`"vnfInstanceId":"${id}"`);
  expect(history.text).toContain(`"opOccId":"${opId}"`);
  // ... and the Web UI's details, where the request is shown (masked)
  expect(history.text).toContain('visible-marker-31');
  for (const s of secrets) {
    expect([s, history.text.includes(s)]).toEqual([s, false]);
    expect([s, history.text.includes(Buffer.from(s).toString('base64'))]).toEqual([s, false]);
  }
  const shown = [
    (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).text,
    (await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?vnfInstanceId=${id}&fields=operationParams,error`)).text,
    (await call('GET', `/vnflcm/v2/vnf_lcm_op_occs/${opId}`, undefined, { Version: '2.0.0' })).text,
  ];
  expect(shown[1]).toContain('visible-marker-31'); // positive control: the params are shown, masked
  expect(shown[1]).toContain('host1:3128');
  for (const text of shown) for (const s of secrets) expect([s, text.includes(s)]).toEqual([s, false]);
  for (const f of fs.readdirSync(readState().logDir)) {
    const log = fs.readFileSync(path.join(readState().logDir, f), 'utf8');
    for (const s of secrets) expect([f, s, log.includes(s)]).toEqual([f, s, false]);
  }
  // and at rest the request is sealed in the database
  for (const f of ['orchestrator.db', 'orchestrator.db-wal']) {
    const file = path.join(readState().dataDir, f);
    if (fs.existsSync(file)) for (const s of secrets) expect([f, s, fs.readFileSync(file).includes(Buffer.from(s))]).toEqual([f, s, false]);
  }
});
