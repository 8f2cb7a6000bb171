/**
 * Every VNF LCM operation, one entry each: its Temporal workflow type (the
 * worker's bundle exports a workflow of that name: worker/operation-workflows.ts), its
 * request body (validation, masking of secrets in its op occ, OpenAPI) and
 * the one-line summary the Temporal Web UI shows for it, and how the API takes
 * it (a POST on a task resource, or the PATCH of the instance: task.method).
 * Adding an operation is one folder under ops/vnflcm/ and one line here
 * (then `npm run ops:workflows` exports its workflow from the worker's bundle).
 */
import type { z } from 'zod';
import type { LcmOperation } from '../model/lcm-operation';
import type { OperationModule } from './operation';
import { changeExtConnOp } from './vnflcm/change-ext-conn';
import { changeVnfpkgOp } from './vnflcm/change-vnfpkg';
import { healOp } from './vnflcm/heal';
import { instantiateOp } from './vnflcm/instantiate';
import { modifyInfoOp } from './vnflcm/modify-info';
import { scaleOp } from './vnflcm/scale';
import { terminateOp } from './vnflcm/terminate';
import type { MagnumOperationModule } from './magnum/operation';
import { caRotateOp } from './magnum/ca-rotate';
import { clusterCreateOp } from './magnum/cluster-create';
import { clusterDeleteOp } from './magnum/cluster-delete';
import { clusterResizeOp } from './magnum/cluster-resize';
import { clusterUpdateOp } from './magnum/cluster-update';
import { clusterUpgradeOp } from './magnum/cluster-upgrade';
import { nodegroupCreateOp } from './magnum/nodegroup-create';
import { nodegroupDeleteOp } from './magnum/nodegroup-delete';
import { nodegroupUpdateOp } from './magnum/nodegroup-update';

export const VNF_LCM_OPERATIONS: Record<LcmOperation, OperationModule<any>> = {
  INSTANTIATE: instantiateOp,
  TERMINATE: terminateOp,
  HEAL: healOp,
  SCALE: scaleOp,
  CHANGE_VNFPKG: changeVnfpkgOp,
  MODIFY_INFO: modifyInfoOp,
  CHANGE_EXT_CONN: changeExtConnOp,
};

/** The request schema of an operation: what masks its op occ's operationParams and error (by schema,
 *  common/secret-schema.ts); undefined for one this product does not know (then only the key-name safety net applies). */
export function requestSchemaOf(operation: string): z.ZodType | undefined {
  return operationModule(operation)?.request;
}

/** undefined for an operation this product does not know. */
export function operationModule(operation: string): OperationModule | undefined {
  return (VNF_LCM_OPERATIONS as Record<string, OperationModule | undefined>)[operation];
}

/**
 * Every Magnum cluster operation (seed 003), one entry each, keyed by the
 * name the store records: its workflow type (exported by
 * worker/workflows.ts), the Web UI summary, and its route, request and
 * checks. Adding one is one folder under ops/magnum/ and one line here (the
 * store takes any name: no migration; `npm run ops:workflows` exports its
 * workflow from the worker's bundle).
 */
export const MAGNUM_CLUSTER_OPERATIONS = {
  'cluster-create': clusterCreateOp,
  'cluster-update': clusterUpdateOp,
  'cluster-resize': clusterResizeOp,
  'cluster-upgrade': clusterUpgradeOp,
  'cluster-delete': clusterDeleteOp,
  'nodegroup-create': nodegroupCreateOp,
  'nodegroup-update': nodegroupUpdateOp,
  'nodegroup-delete': nodegroupDeleteOp,
  'ca-rotate': caRotateOp,
} satisfies Record<string, MagnumOperationModule>;
export type MagnumOperation = keyof typeof MAGNUM_CLUSTER_OPERATIONS;

/** The module of a recorded operation; throws for a name this product does not know (a row written by a newer version). */
export function magnumOperationModule(operation: string): MagnumOperationModule {
  const op = (MAGNUM_CLUSTER_OPERATIONS as Record<string, MagnumOperationModule | undefined>)[operation];
  if (!op) throw new Error(`unknown Magnum operation ${operation}`);
  return op;
}
