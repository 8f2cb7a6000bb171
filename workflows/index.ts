/** Workflow types registered on the worker. One LCM workflow per op occ (id = op occ id). */
import { ApplicationFailure } from '@temporalio/workflow';
import type { LcmOpInput } from './definitions';
import { instantiate } from './instantiate';
import { terminate } from './terminate';
import { heal } from './heal';
import { scale } from './scale';
import { changeVnfpkg } from './change-vnfpkg';

export { onboard } from './onboard';
export { rollVnfc } from './roll-vnfc';
export { rollingChunk } from './rolling-chunk';

export async function lcmOperation(input: LcmOpInput) {
  switch (input.operation) {
    case 'INSTANTIATE': return instantiate(input);
    case 'TERMINATE': return terminate(input);
    case 'HEAL': return heal(input);
    case 'SCALE': return scale(input);
    case 'CHANGE_VNFPKG': return changeVnfpkg(input);
    default: throw ApplicationFailure.nonRetryable(`operation ${input.operation} is not implemented`);
  }
}
