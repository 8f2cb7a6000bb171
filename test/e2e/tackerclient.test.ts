/**
 * The stock python-tackerclient (from PyPI, in the project's venv),
 * authenticated through the embedded Keystone as a member of a project of
 * its own, drives the product as an operator would: VIM register, list,
 * show, delete; package create, upload, show; vnflcm create, instantiate,
 * show, op list, update, change-ext-conn, change-vnfpkg, terminate, delete.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { VENV } from '../../runtime/openstack/install';
import { sampleVariant, twoVduVnfV2 } from '../../samples/variant';
import { readState } from '../harness/state';
import { call, eventually, onboard, opIdFrom, waitOpState } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';

const run = promisify(execFile);
let user: TestUser;
let dir: string;

/** `openstack <args>` as the test user; JSON output when the command has it. */
async function openstack(args: string[], json = true): Promise<any> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: dir, PYTHONWARNINGS: 'ignore',
    OS_AUTH_URL: readState().keystoneUrl, OS_REGION_NAME: 'RegionOne', OS_USERNAME: user.name, OS_PASSWORD: user.password, OS_PROJECT_NAME: user.project,
    OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_IDENTITY_API_VERSION: '3',
  };
  try {
    const { stdout } = await run(path.join(VENV, 'bin', 'openstack'), [...args, ...(json ? ['-f', 'json'] : [])], { env, timeout: 120_000, cwd: dir });
    return json ? JSON.parse(stdout) : stdout;
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`openstack ${args.join(' ')}: ${err.stderr || err.stdout || err.message}`);
  }
}

/**
 * Waits for `path` (the user's view through the API) to be `done`; the test then asks the CLI once. Polling with
 * the CLI itself would cost two seconds of CPU and a Keystone login a second for the whole wait.
 */
async function untilApi(what: string, path: string, done: (body: any) => boolean, timeoutMs = 120_000): Promise<void> {
  await eventually(what, async () => (done((await call('GET', path, undefined, await user.headers())).body) ? true : undefined), timeoutMs, 1000);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tackerclient-'));
  const runId = Date.now().toString(36);
  user = await keystoneUser(`cli-project-${runId}`, `cli-operator-${runId}`, 'member');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('openstack vim register, list, show and delete', async () => {
  fs.writeFileSync(path.join(dir, 'vim.yaml'), [
    `auth_url: '${readState().keystoneUrl}'`, `username: '${user.name}'`, `password: '${user.password}'`,
    `project_name: '${user.project}'`, "project_domain_name: 'Default'", "user_domain_name: 'Default'", "cert_verify: 'True'", '',
  ].join('\n'));
  const vim = await openstack(['vim', 'register', '--config-file', path.join(dir, 'vim.yaml'), '--description', 'cli test', 'cli-vim']);
  expect(vim.name).toBe('cli-vim');
  expect(vim.project_id).toBe(user.projectId); // the CLI shows tenant_id as project_id
  expect(JSON.stringify(vim)).not.toContain(user.password);
  const list: any[] = await openstack(['vim', 'list']);
  expect(list.map((v) => v.Name)).toEqual(expect.arrayContaining(['cli-vim', 'default']));
  expect((await openstack(['vim', 'show', 'cli-vim'])).id).toBe(vim.id);
  await openstack(['vim', 'delete', 'cli-vim'], false);
  expect((await openstack(['vim', 'list'])).map((v: any) => v.Name)).not.toContain('cli-vim');
});

test('openstack vnf package and vnflcm: onboard, instantiate, terminate, delete', async () => {
  const { zip, vnfdId } = sampleVariant(path.resolve(__dirname, '../../samples/two_vdu_vnf'));
  fs.writeFileSync(path.join(dir, 'pkg.zip'), zip);
  const pkg = await openstack(['vnf', 'package', 'create']);
  await openstack(['vnf', 'package', 'upload', '--path', path.join(dir, 'pkg.zip'), pkg.ID], false);
  await untilApi('package onboarded', `/vnfpkgm/v1/vnf_packages/${pkg.ID}`, (p) => p.onboardingState === 'ONBOARDED', 60_000);
  const onboarded = await openstack(['vnf', 'package', 'show', pkg.ID]);
  expect(onboarded['Onboarding State']).toBe('ONBOARDED');
  expect(onboarded['VNFD ID']).toBe(vnfdId);

  const inst = await openstack(['vnflcm', 'create', vnfdId, '--name', 'cli-vnf']);
  fs.writeFileSync(path.join(dir, 'instantiate.json'), JSON.stringify({
    flavourId: 'simple', extVirtualLinks: [{ id: 'net0', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }));
  await openstack(['vnflcm', 'instantiate', inst.ID, path.join(dir, 'instantiate.json')], false);
  await untilApi('instance instantiated', `/vnflcm/v1/vnf_instances/${inst.ID}`, (i) => i.instantiationState === 'INSTANTIATED');
  const shown = await openstack(['vnflcm', 'show', inst.ID]);
  expect(shown['Instantiation State']).toBe('INSTANTIATED');
  expect(shown['VNF Instance Name']).toBe('cli-vnf');
  const ops: any[] = await openstack(['vnflcm', 'op', 'list']);
  expect(ops.some((o) => o['VNF Instance ID'] === inst.ID && o['Operation'] === 'INSTANTIATE' && o['Operation State'] === 'COMPLETED')).toBe(true);

  await openstack(['vnflcm', 'terminate', inst.ID], false);
  await untilApi('instance terminated', `/vnflcm/v1/vnf_instances/${inst.ID}`, (i) => i.instantiationState === 'NOT_INSTANTIATED');
  expect((await openstack(['vnflcm', 'show', inst.ID]))['Instantiation State']).toBe('NOT_INSTANTIATED');
  await openstack(['vnflcm', 'delete', inst.ID], false);
  expect((await openstack(['vnflcm', 'list'])).map((i: any) => i.ID)).not.toContain(inst.ID);
});

/** The two-VDU sample and its v2 (another vnfdId and image), onboarded in the user's project. */
async function twoPackages() {
  const sample = path.resolve(__dirname, '../../samples/two_vdu_vnf');
  const a = sampleVariant(sample);
  const b = sampleVariant(sample, { editYaml: (_p, t) => twoVduVnfV2(t) });
  await onboard(a.zip, await user.headers());
  await onboard(b.zip, await user.headers());
  return { a, b };
}

test('openstack vnflcm update: name, description and metadata on v1, vnfdId on v2 (MODIFY_INFO op occs)', async () => {
  const { a, b } = await twoPackages();
  const inst = await openstack(['vnflcm', 'create', a.vnfdId, '--name', 'cli-update']);
  fs.writeFileSync(path.join(dir, 'update.json'), JSON.stringify({ vnfInstanceName: 'cli-renamed', vnfInstanceDescription: 'by the stock client', metadata: { owner: 'cli' } }));
  expect(await openstack(['vnflcm', 'update', inst.ID, '--I', path.join(dir, 'update.json')], false)).toContain(`Update vnf:${inst.ID}`);
  await untilApi('instance renamed', `/vnflcm/v1/vnf_instances/${inst.ID}`, (i) => i.vnfInstanceName === 'cli-renamed', 60_000);
  const renamed = await openstack(['vnflcm', 'show', inst.ID]);
  expect(renamed['VNF Instance Name']).toBe('cli-renamed');
  expect(renamed['VNF Instance Description']).toBe('by the stock client');
  fs.writeFileSync(path.join(dir, 'update-v2.json'), JSON.stringify({ vnfdId: b.vnfdId }));
  await openstack(['--os-tacker-api-version', '2', 'vnflcm', 'update', inst.ID, '--I', path.join(dir, 'update-v2.json')], false);
  await untilApi('instance on the other VNFD', `/vnflcm/v1/vnf_instances/${inst.ID}`, (i) => i.vnfdId === b.vnfdId, 60_000);
  expect((await openstack(['vnflcm', 'show', inst.ID]))['VNFD ID']).toBe(b.vnfdId);
  const ops: any[] = await openstack(['vnflcm', 'op', 'list']);
  expect(ops.filter((o) => o['VNF Instance ID'] === inst.ID && o['Operation'] === 'MODIFY_INFO').map((o) => o['Operation State'])).toEqual(['COMPLETED', 'COMPLETED']);
  await openstack(['vnflcm', 'delete', inst.ID], false);
});

test('openstack vnflcm change-ext-conn moves a CP to the private network', async () => {
  const { zip, vnfdId } = sampleVariant(path.resolve(__dirname, '../../samples/two_vdu_vnf'));
  await onboard(zip, await user.headers());
  const inst = await openstack(['vnflcm', 'create', vnfdId]);
  const started = await call('POST', `/vnflcm/v1/vnf_instances/${inst.ID}/instantiate`, {
    flavourId: 'simple', extVirtualLinks: [{ id: 'net0', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }, await user.headers());
  const op = await waitOpState(opIdFrom(started), ['COMPLETED', 'FAILED_TEMP'], 90_000);
  expect(op.operationState === 'COMPLETED' ? op.operationState : op.error?.detail).toBe('COMPLETED');
  fs.writeFileSync(path.join(dir, 'change-ext-conn.json'), JSON.stringify({
    extVirtualLinks: [{ id: 'net1', resourceId: 'private', extCps: [{ cpdId: 'VDU1_CP1', cpConfig: { VDU1_CP1_1: { cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] } } }] }],
  }));
  const out = await openstack(['vnflcm', 'change-ext-conn', inst.ID, path.join(dir, 'change-ext-conn.json')], false);
  expect(out).toContain(`Change External VNF Connectivity for VNF Instance ${inst.ID} has been accepted.`);
  await untilApi('change_ext_conn completed', `/vnflcm/v1/vnf_lcm_op_occs?filter=(eq,vnfInstanceId,${inst.ID})`, (ops) => ops.some((o: any) => o.operation === 'CHANGE_EXT_CONN' && o.operationState === 'COMPLETED'));
  const extOps: any[] = await openstack(['vnflcm', 'op', 'list']);
  expect(extOps.some((o) => o['VNF Instance ID'] === inst.ID && o['Operation'] === 'CHANGE_EXT_CONN' && o['Operation State'] === 'COMPLETED')).toBe(true);
  const info = (await openstack(['vnflcm', 'show', inst.ID]))['Instantiated Vnf Info'];
  const net1 = info.extVirtualLinkInfo.find((l: any) => l.id === 'net1');
  expect(net1.resourceHandle.resourceId).toBe('private');
  expect(net1.currentVnfExtCpData.map((c: any) => c.cpdId)).toEqual(['VDU1_CP1']);
});

test('openstack vnflcm change-vnfpkg with upgrade_type BlueGreen: the new VNFCs replace the old ones', async () => {
  const { a, b } = await twoPackages();
  const inst = await openstack(['vnflcm', 'create', a.vnfdId]);
  const started = await call('POST', `/vnflcm/v1/vnf_instances/${inst.ID}/instantiate`, {
    flavourId: 'simple', extVirtualLinks: [{ id: 'net0', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }, await user.headers());
  const op = await waitOpState(opIdFrom(started), ['COMPLETED', 'FAILED_TEMP'], 90_000);
  expect(op.operationState === 'COMPLETED' ? op.operationState : op.error?.detail).toBe('COMPLETED');
  const param = { cp_name: 'VDU1_CP1', username: 'ubuntu', password: 'cli-bg-pw' };
  fs.writeFileSync(path.join(dir, 'change-vnfpkg.json'), JSON.stringify({
    vnfdId: b.vnfdId,
    additionalParams: { upgrade_type: 'BlueGreen', vdu_params: ['VDU1', 'VDU2'].map((vdu_id) => ({ vdu_id, old_vnfc_param: param, new_vnfc_param: param })) },
  }));
  const out = await openstack(['--os-tacker-api-version', '2', 'vnflcm', 'change-vnfpkg', inst.ID, path.join(dir, 'change-vnfpkg.json')], false);
  expect(out).toContain(`Change Current VNF Package for VNF Instance ${inst.ID} has been accepted.`);
  await untilApi('change_vnfpkg completed', `/vnflcm/v1/vnf_lcm_op_occs?filter=(eq,vnfInstanceId,${inst.ID})`, (ops) => ops.some((o: any) => o.operation === 'CHANGE_VNFPKG' && o.operationState === 'COMPLETED'));
  const pkgOps: any[] = await openstack(['vnflcm', 'op', 'list']);
  expect(pkgOps.some((o) => o['VNF Instance ID'] === inst.ID && o['Operation'] === 'CHANGE_VNFPKG' && o['Operation State'] === 'COMPLETED')).toBe(true);
  const shown = await openstack(['vnflcm', 'show', inst.ID]);
  expect(shown['VNFD ID']).toBe(b.vnfdId);
  expect(shown['Instantiated Vnf Info'].vnfcResourceInfo.map((v: any) => v.metadata.heatResourceName).sort()).toEqual(['VDU1-1', 'VDU2-1']);
});
