/** The two-VDU sample as a package pair, its instances and change_vnfpkg requests: shared by the RollingUpdate and BlueGreen tests. */
import path from 'node:path';
import { sampleVariant, twoVduVnfV2 } from '../../samples/variant';
import { call, onboard, opIdFrom, serverImageName, waitOpState } from './api';

export const V2 = '/vnflcm/v2';
export const H = { Version: '2.0.0' };
const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');

/** v1 and v2 differ in vnfdId, version and the VDU image. */
export function samplePackage(version: '1.0' | '2.0', extra: Record<string, Buffer> = {}): { zip: Buffer; vnfdId: string } {
  return sampleVariant(SAMPLE, { editYaml: (_p, t) => (version === '2.0' ? twoVduVnfV2(t) : t), extraFiles: extra });
}

/** v1 and v2 of the sample, onboarded. */
export async function onboardPair(): Promise<{ oldVnfd: string; newVnfd: string; oldPkgId: string; newPkgId: string }> {
  const v1 = samplePackage('1.0');
  const v2 = samplePackage('2.0');
  return { oldVnfd: v1.vnfdId, newVnfd: v2.vnfdId, oldPkgId: (await onboard(v1.zip)).id, newPkgId: (await onboard(v2.zip)).id };
}

/** A ChangeCurrentVnfPkgRequest for both VDUs, `param(side)` giving each vnfc_param. */
export const changeRequest = (vnfdId: string, upgradeType: 'RollingUpdate' | 'BlueGreen', param: (side: 'old' | 'new') => unknown, extra: Record<string, unknown> = {}) => ({
  vnfdId,
  additionalParams: {
    upgrade_type: upgradeType,
    vdu_params: [
      { vdu_id: 'VDU1', old_vnfc_param: param('old'), new_vnfc_param: param('new') },
      { vdu_id: 'VDU2', old_vnfc_param: param('old'), new_vnfc_param: param('new') },
    ],
    ...extra,
  },
});

export async function instantiated(vnfdId: string, level = 'instantiation_level_1'): Promise<string> {
  const id = (await call('POST', `${V2}/vnf_instances`, { vnfdId }, H)).body.id;
  const r = await call('POST', `${V2}/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple', instantiationLevelId: level,
    extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }, H);
  expect((await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 60_000, 'v2')).operationState).toBe('COMPLETED');
  return id;
}

export async function changeVnfpkg(id: string, body: unknown): Promise<string> {
  const r = await call('POST', `${V2}/vnf_instances/${id}/change_vnfpkg`, body, H);
  expect(r.status).toBe(202);
  return opIdFrom(r);
}

export const done = (opId: string, states = ['COMPLETED', 'FAILED_TEMP', 'ROLLED_BACK']) => waitOpState(opId, states, 90_000, 'v2');

/** Image of every VNFC's server that boots from an image (VDU2 boots from a volume), keyed by heat resource name. */
export async function images(id: string): Promise<Record<string, string>> {
  const inst = (await call('GET', `${V2}/vnf_instances/${id}`)).body;
  const out: Record<string, string> = {};
  for (const v of inst.instantiatedVnfInfo.vnfcResourceInfo) {
    const image = await serverImageName(v.computeResource.resourceId);
    if (image) out[v.metadata.heatResourceName] = image;
  }
  return out;
}
