/**
 * The worker's workflow bundle: every workflow type, one per operation (the
 * Temporal Web UI lists and filters them by type), and the children they
 * start. ops/registry.ts maps each operation to its type.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { LcmOpInput } from '../engine/contracts';
import { instantiate } from '../ops/vnflcm/instantiate/workflow';
import { terminate } from '../ops/vnflcm/terminate/workflow';
import { heal } from '../ops/vnflcm/heal/workflow';
import { scale } from '../ops/vnflcm/scale/workflow';
import { changeVnfpkg } from '../ops/vnflcm/change-vnfpkg/workflow';
import { modifyInfo } from '../ops/vnflcm/modify-info/workflow';
import { changeExtConn } from '../ops/vnflcm/change-ext-conn/workflow';

export { instantiate, terminate, heal, scale, changeVnfpkg, modifyInfo, changeExtConn };
export { rollVnfc } from '../ops/vnflcm/change-vnfpkg/roll-vnfc';
export { rollingChunk } from '../ops/vnflcm/change-vnfpkg/rolling-chunk';
export { onboard } from '../ops/vnfpkgm/onboard/workflow';
export {
  kubernetesInstantiateEnd, kubernetesScaleStart, kubernetesScaleEnd, kubernetesHealStart, kubernetesHealEnd, kubernetesTerminateEnd,
} from '../cluster/workflows/vnf-hooks';
export { rotateClusterCa } from '../cluster/workflows/rotate-ca';
export { clusterHealth } from '../cluster/workflows/health';
export { magnumClusterCreate } from '../ops/magnum/cluster-create/workflow';
export { magnumClusterUpdate } from '../ops/magnum/cluster-update/workflow';
export { magnumClusterResize } from '../ops/magnum/cluster-resize/workflow';
export { magnumClusterUpgrade } from '../ops/magnum/cluster-upgrade/workflow';
export { magnumClusterDelete } from '../ops/magnum/cluster-delete/workflow';
export { magnumNodegroupCreate } from '../ops/magnum/nodegroup-create/workflow';
export { magnumNodegroupUpdate } from '../ops/magnum/nodegroup-update/workflow';
export { magnumNodegroupDelete } from '../ops/magnum/nodegroup-delete/workflow';
export { magnumCaRotate } from '../ops/magnum/ca-rotate/workflow';
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
