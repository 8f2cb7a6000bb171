/**
 * The worker's workflow bundle: every workflow type, one per operation (the
 * Temporal Web UI lists and filters them by type), and the children they
 * start. ops/registry.ts maps each operation to its type; operation-workflows.ts,
 * generated from it (npm run ops:workflows), exports each operation's workflow.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { LcmOpInput } from '../engine/contracts';
import { changeVnfpkg, heal, instantiate, scale, terminate } from './operation-workflows';

// every registered operation's workflow (generated from ops/registry.ts), then the children they start
export * from './operation-workflows';
export { rollVnfc } from '../ops/vnflcm/change-vnfpkg/roll-vnfc';
export { rollingChunk } from '../ops/vnflcm/change-vnfpkg/rolling-chunk';
export { onboard } from '../ops/vnfpkgm/onboard/workflow';
export {
  kubernetesInstantiateEnd, kubernetesScaleStart, kubernetesScaleEnd, kubernetesHealStart, kubernetesHealEnd, kubernetesTerminateEnd,
} from '../cluster/workflows/vnf-hooks';
export { rotateClusterCa } from '../cluster/workflows/rotate-ca';
export { clusterHealth } from '../cluster/workflows/health';
export { deliverCadfNotification } from '../ops/magnum/shared/cadf-workflow';
export { deliverNotifications } from '../notify/workflow';

/**
 * The one type every VNF LCM operation had before each got its own: operations started under it
 * (running, or parked in FAILED_TEMP) go on here. Nothing new starts it.
 */
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
