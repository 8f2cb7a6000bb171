/**
 * VIM selection through vimConnectionInfo, and the Vnflcm hook extension
 * point (no runners are registered yet: a bound hook fails its step cleanly).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readFolderFiles, zipFiles } from '../../samples/build';
import { sampleVariant } from '../../samples/variant';
import { readState } from '../harness/state';
import { call, onboard, opIdFrom, waitOpState } from '../support/api';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');

/** The two-VDU sample under a fresh vnfdId, optionally edited. */
function samplePackage(edit: (files: Record<string, Buffer>) => void = () => undefined): { zip: Buffer; vnfdId: string } {
  const { files, vnfdId } = sampleVariant(SAMPLE);
  edit(files);
  return { zip: zipFiles(files), vnfdId };
}

const body = (vimConnectionInfo?: unknown) => ({
  flavourId: 'simple',
  extVirtualLinks: [{ id: 'net0', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  ...(vimConnectionInfo ? { vimConnectionInfo } : {}),
});

async function instanceOf(vnfdId: string): Promise<string> {
  const r = await call('POST', '/vnflcm/v2/vnf_instances', { vnfdId });
  expect(r.status).toBe(201);
  return r.body.id;
}

describe('vimConnectionInfo', () => {
  let vnfdId: string;
  beforeAll(async () => {
    const p = samplePackage();
    expect((await onboard(p.zip)).onboardingState).toBe('ONBOARDED');
    vnfdId = p.vnfdId;
  });

  const inlineVim = (password: string) => ({
    vim1: {
      vimId: crypto.randomUUID(), vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3',
      interfaceInfo: { endpoint: readState().keystoneUrl },
      accessInfo: { username: 'admin', password, project: 'admin', projectDomain: 'Default', userDomain: 'Default', region: 'RegionOne' },
    },
  });

  test('an inline VIM is registered with its password sealed, and used', async () => {
    const id = await instanceOf(vnfdId);
    const r = await call('POST', `/vnflcm/v2/vnf_instances/${id}/instantiate`, body(inlineVim(readState().adminPassword)), { Version: '2.0.0' });
    expect(r.status).toBe(202);
    expect((await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 60_000, 'v2')).operationState).toBe('COMPLETED');
    const inst = (await call('GET', `/vnflcm/v2/vnf_instances/${id}`)).body;
    const vci = inst.vimConnectionInfo.vim1;
    expect(vci.interfaceInfo.endpoint).toBe(readState().keystoneUrl);
    expect(vci.accessInfo.username).toBe('admin');
    expect(vci.accessInfo.password).not.toBe(readState().adminPassword);
    expect(inst.instantiatedVnfInfo.vnfcResourceInfo[0].computeResource.vimConnectionId).toBe(vci.vimId);
  });

  test('a VIM with a wrong password fails the step with Keystone\'s answer', async () => {
    const id = await instanceOf(vnfdId);
    const r = await call('POST', `/vnflcm/v2/vnf_instances/${id}/instantiate`, body(inlineVim('wrong-password-123')));
    const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 90_000, 'v2');
    expect(op.operationState).toBe('FAILED_TEMP');
    expect(op.error.detail).toMatch(/401/);
    expect(JSON.stringify(op)).not.toContain('wrong-password-123');
    expect((await call('POST', `/vnflcm/v2/vnf_lcm_op_occs/${op.id}/fail`)).body.operationState).toBe('FAILED');
  });

  test('an unknown vimId is refused before anything runs', async () => {
    const id = await instanceOf(vnfdId);
    const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, body([{ id: 'c1', vimId: '8d8373fe-6977-49ff-83ac-7756572ed186', vimType: 'openstack' }]));
    expect(r.status).toBe(422);
    expect(r.body.detail).toContain('8d8373fe-6977-49ff-83ac-7756572ed186');
    expect((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?vnfInstanceId=${id}`)).body).toEqual([]);
  });
});

test('a VNFD hook without a runner fails its step cleanly, naming hook and artifact; rollback removes the stack', async () => {
  const { zip, vnfdId } = samplePackage((files) => {
    const df = 'Definitions/two_vdu_vnf_df_simple.yaml';
    const text = files[df].toString();
    const hooked = text.replace(/(\n    VNF:\n      type: [^\n]+\n      properties:\n        flavour_description: [^\n]+\n)/, `$1      interfaces:
        Vnflcm:
          instantiate_end:
            implementation: custom-driver
      artifacts:
        custom-driver:
          description: A Mgmt Driver this product has no runner for
          type: tosca.artifacts.Implementation.Python
          file: ../Scripts/custom_driver.py
`);
    expect(hooked).not.toBe(text);
    files[df] = Buffer.from(hooked);
    files['Scripts/custom_driver.py'] = Buffer.from('print("hello")\n');
  });
  const pkg = await onboard(zip);
  expect(pkg.onboardingFailureDetails).toBeUndefined();
  const id = await instanceOf(vnfdId);
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, body());
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP']);
  expect(op.operationState).toBe('FAILED_TEMP');
  expect(op.error.detail).toContain('instantiate_end');
  expect(op.error.detail).toContain('Scripts/custom_driver.py');
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${op.id}/rollback`)).status).toBe(202);
  expect((await waitOpState(op.id, ['ROLLED_BACK', 'FAILED_TEMP'])).operationState).toBe('ROLLED_BACK');
  expect((await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body.instantiationState).toBe('NOT_INSTANTIATED');
  expect(fs.existsSync(readState().dataDir)).toBe(true);
});

test.each([
  ['samples/one_vdu_vnf', () => zipFiles(readFolderFiles(path.resolve(__dirname, '../../samples/one_vdu_vnf'))), 'VDU1_CP1'],
])('a package without BaseHOT instantiates from a generated HOT: %s', async (_name, zip, cp) => {
  const pkg = await onboard((zip as () => Buffer)());
  expect(pkg.onboardingState).toBe('ONBOARDED');
  const id = await instanceOf(pkg.vnfdId);
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple', extVirtualLinks: [{ id: 'net0', resourceId: 'public', extCps: [{ cpdId: cp }] }],
  });
  expect(r.status).toBe(202);
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP']);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const inst = (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body;
  expect(inst.instantiatedVnfInfo.vnfcResourceInfo).toHaveLength(1);
  expect(inst.instantiatedVnfInfo.extCpInfo[0].cpdId).toBe(cp);
});
