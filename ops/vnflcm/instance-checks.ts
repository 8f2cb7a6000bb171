/** Preconditions several VNF LCM operations share (prechecks, ops/vnflcm/<op>/precheck.ts). */
import { instantiatedInfoOf } from '../../store/repos/instances';
import type { InstanceRow } from '../../store/repos/rows';
import { packageById } from '../../store/repos/packages';
import type { Store } from '../../store';
import { baseHotFiles } from '../../store/repos/package-files';
import { conflict, HttpError } from '../../common/http-error';
import { checkBaseHotTypes, TemplatePolicyRefused } from '../../infra/hot';
import type { InstantiatedVnfInfo } from '../../infra/vnf-info';
import type { VnfdFlavour } from '../../model/vnfd';

/** 409 unless the instance is INSTANTIATED (checked again inside the start's transaction). */
export function requireInstantiated(i: Pick<InstanceRow, 'id' | 'instantiationState'>): void {
  if (i.instantiationState !== 'INSTANTIATED') throw conflict(`VNF instance ${i.id} is NOT_INSTANTIATED`);
}

/** An instantiated instance's info and the VNFD flavour it runs (undefined when its package is gone). */
export async function instantiatedInfo(db: Store, inst: InstanceRow): Promise<{ info: InstantiatedVnfInfo; flavour?: VnfdFlavour }> {
  requireInstantiated(inst);
  const pkg = await packageById(db, inst.vnfPkgId);
  const info = instantiatedInfoOf(inst);
  return { info, flavour: (pkg?.vnfd ?? undefined)?.flavours[info.flavourId] };
}

/** 422 for templates with resource types outside HEAT_RESOURCE_TYPES, naming each file, resource and type. */
export function templatePolicyError(e: TemplatePolicyRefused): HttpError {
  return new HttpError(422, e.message, 'Unprocessable Entity', { invalidResources: e.violations });
}

/** The package's BaseHOT of the flavour, as it would run now (a scale, heal or change to it): 422 when a resource type is not allowed. */
export async function requireAllowedTemplates(db: Store, packageId: string, flavourId: string, allowedTypes: readonly string[]): Promise<void> {
  try {
    checkBaseHotTypes(await baseHotFiles(db, packageId), flavourId, allowedTypes);
  } catch (e) {
    throw e instanceof TemplatePolicyRefused ? templatePolicyError(e) : e;
  }
}
