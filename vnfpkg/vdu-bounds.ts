import { PackageError } from './package-error';
import type { Vnfd } from '../model/vnfd';

/**
 * Refuses a VNFD that asks for more instances of a VDU than MAX_VDU_INSTANCES
 * anywhere (vdu_profile, initial delta, instantiation levels, scaling deltas):
 * the stack, and every loop building it, grows with these numbers.
 */
export function checkVduInstanceBounds(vnfd: Vnfd, max: number): void {
  const refuse = (flavourId: string, vduId: string, what: string, n: number) => {
    throw new PackageError(`Flavour ${flavourId}: VDU ${vduId}: ${what} is ${n}, more than ${max} (MAX_VDU_INSTANCES)`);
  };
  for (const f of Object.values(vnfd.flavours)) {
    for (const vdu of Object.values(f.vdus)) {
      if (vdu.maxInstances > max) refuse(f.flavourId, vdu.id, 'vdu_profile.max_number_of_instances', vdu.maxInstances);
      if (vdu.minInstances > max) refuse(f.flavourId, vdu.id, 'vdu_profile.min_number_of_instances', vdu.minInstances);
    }
    for (const [vduId, n] of Object.entries(f.vduInitialDelta)) {
      if (n > max) refuse(f.flavourId, vduId, 'initial_delta.number_of_instances', n);
    }
    for (const [vduId, levels] of Object.entries(f.vduInstantiationLevels)) {
      for (const [levelId, n] of Object.entries(levels)) if (n > max) refuse(f.flavourId, vduId, `instantiation level ${levelId} number_of_instances`, n);
    }
    for (const [aspectId, perVdu] of Object.entries(f.vduScalingAspectDeltas)) {
      for (const [vduId, deltas] of Object.entries(perVdu)) {
        for (const [deltaId, n] of Object.entries(deltas)) if (n > max) refuse(f.flavourId, vduId, `aspect ${aspectId} delta ${deltaId} number_of_instances`, n);
      }
    }
    for (const aspect of Object.values(f.scalingAspects)) {
      if (aspect.maxScaleLevel > max) throw new PackageError(`Flavour ${f.flavourId}: aspect ${aspect.id}: max_scale_level is ${aspect.maxScaleLevel}, more than ${max} (MAX_VDU_INSTANCES)`);
    }
  }
}

/** The VNFD model is stored as JSON and listed with every package: its size is bounded (YAML can expand linearly). */
export function checkVnfdSize(vnfd: Vnfd, max: number): void {
  const bytes = Buffer.byteLength(JSON.stringify(vnfd));
  if (bytes > max) throw new PackageError(`The VNFD model is ${bytes} bytes as stored, more than ${max} (PACKAGE_MAX_VNFD_BYTES)`);
}
