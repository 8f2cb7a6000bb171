/**
 * What a VnfInfoModificationRequest makes of an instance (pure): the merge
 * patches applied, the VIM connection entries merged by key and masked, and
 * the op occ's changedInfo (VnfInfoModifications: every attribute the request
 * named, with its new value, and the package fields a vnfdId change brought).
 * Applying the same request twice gives the same instance (RFC 7396 merge
 * patches are idempotent), so the activity may run again after a crash.
 */
import { jsonMergePatch } from '../../../common/json-merge-patch';
import { maskBySchema } from '../../../common/secret-schema';
import type { InstanceRow, PackageRow } from '../../../store/repos/rows';
import { VimConnectionInfo } from '../../../model/vnflcm';
import type { VnfInfoModificationRequest } from './request';

type Json = Record<string, unknown>;

/** The instance's vimConnectionInfo as a map keyed by id (SOL003 v2), in its order. */
export function vciMap(list: InstanceRow['vimConnectionInfo']): Record<string, Json> {
  return Object.fromEntries(list.map((c, i) => [String((c as Json).id ?? `vim-${i}`), c as Json]));
}

/** The instance's entries with the request's merged over them by key; new keys come last. */
export function mergedVci(current: InstanceRow['vimConnectionInfo'], patch: NonNullable<VnfInfoModificationRequest['vimConnectionInfo']>): Json[] {
  const merged = jsonMergePatch(vciMap(current), patch) as Record<string, Json>;
  return Object.entries(merged).map(([id, c]) => ({ ...c, id }));
}

export interface Modification {
  instance: Partial<InstanceRow>;
  changedInfo: Json;
}

/** `target` is the package of the request's vnfdId, when it names one. */
export function applyModification(inst: InstanceRow, req: VnfInfoModificationRequest, target?: PackageRow): Modification {
  const instance: Partial<InstanceRow> = {};
  const changedInfo: Json = {};
  if (req.vnfInstanceName !== undefined) changedInfo.vnfInstanceName = instance.vnfInstanceName = req.vnfInstanceName;
  if (req.vnfInstanceDescription !== undefined) changedInfo.vnfInstanceDescription = instance.vnfInstanceDescription = req.vnfInstanceDescription;
  for (const k of ['metadata', 'extensions', 'vnfConfigurableProperties'] as const) {
    if (req[k] === undefined) continue;
    const next = jsonMergePatch(inst[k] ?? {}, req[k]) as Json;
    changedInfo[k] = instance[k] = next;
  }
  if (req.vimConnectionInfo !== undefined) {
    const shown = mergedVci(inst.vimConnectionInfo, req.vimConnectionInfo).map((c) => maskBySchema(VimConnectionInfo, c) as Json);
    instance.vimConnectionInfo = shown;
    changedInfo.vimConnectionInfo = Object.fromEntries(shown.filter((c) => String(c.id) in req.vimConnectionInfo!).map((c) => [String(c.id), c]));
  }
  if (target) {
    const pkgFields = {
      vnfdId: target.vnfdId!, vnfPkgId: target.id, vnfProvider: target.vnfProvider!, vnfProductName: target.vnfProductName!,
      vnfSoftwareVersion: target.vnfSoftwareVersion!, vnfdVersion: target.vnfdVersion!,
    };
    Object.assign(instance, pkgFields);
    Object.assign(changedInfo, pkgFields);
  }
  return { instance, changedInfo };
}
