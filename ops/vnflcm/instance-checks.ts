/** Preconditions several VNF LCM operations share (prechecks, ops/vnflcm/<op>/precheck.ts). */
import { instantiatedInfoOf } from '../../common/db/repos/instances';
import type { InstanceRow } from '../../common/db/repos/rows';
import { packageById } from '../../common/db/repos/packages';
import type { Store } from '../../common/db';
import { conflict } from '../../common/http-error';
import type { InstantiatedVnfInfo } from '../../infra/vnf-info';
import type { VnfdFlavour } from '../../vnfpkg/vnfd-model';

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
