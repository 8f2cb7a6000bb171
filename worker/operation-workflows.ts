/**
 * GENERATED from ops/registry.ts by scripts/generate-operation-workflows.ts: do not edit;
 * run `npm run ops:workflows`. Every registered operation's workflow under its workflow
 * type; worker/workflows.ts (the bundle's entry) exports them.
 */
export { instantiate } from '../ops/vnflcm/instantiate/workflow';
export { terminate } from '../ops/vnflcm/terminate/workflow';
export { heal } from '../ops/vnflcm/heal/workflow';
export { scale } from '../ops/vnflcm/scale/workflow';
export { changeVnfpkg } from '../ops/vnflcm/change-vnfpkg/workflow';
export { modifyInfo } from '../ops/vnflcm/modify-info/workflow';
export { changeExtConn } from '../ops/vnflcm/change-ext-conn/workflow';
export { magnumClusterCreate } from '../ops/magnum/cluster-create/workflow';
export { magnumClusterUpdate } from '../ops/magnum/cluster-update/workflow';
export { magnumClusterResize } from '../ops/magnum/cluster-resize/workflow';
export { magnumClusterUpgrade } from '../ops/magnum/cluster-upgrade/workflow';
export { magnumClusterDelete } from '../ops/magnum/cluster-delete/workflow';
export { magnumNodegroupCreate } from '../ops/magnum/nodegroup-create/workflow';
export { magnumNodegroupUpdate } from '../ops/magnum/nodegroup-update/workflow';
export { magnumNodegroupDelete } from '../ops/magnum/nodegroup-delete/workflow';
export { magnumCaRotate } from '../ops/magnum/ca-rotate/workflow';
