/**
 * Magnum's status values (magnum/objects/fields.py) and the rules of which
 * operation may start from which status (conductor handlers): shared by the
 * store's CHECK constraints, the API's refusals and the workflows.
 */
export const CLUSTER_STATUSES = [
  'CREATE_IN_PROGRESS', 'CREATE_FAILED', 'CREATE_COMPLETE',
  'UPDATE_IN_PROGRESS', 'UPDATE_FAILED', 'UPDATE_COMPLETE',
  'DELETE_IN_PROGRESS', 'DELETE_FAILED', 'DELETE_COMPLETE',
  'RESUME_COMPLETE', 'RESUME_FAILED', 'RESTORE_COMPLETE',
  'ROLLBACK_IN_PROGRESS', 'ROLLBACK_FAILED', 'ROLLBACK_COMPLETE',
  'SNAPSHOT_COMPLETE', 'CHECK_COMPLETE', 'ADOPT_COMPLETE',
] as const;
export type ClusterStatus = (typeof CLUSTER_STATUSES)[number];

/** Where PATCH node_count, upgrade and CA rotation may start (Magnum: any *_COMPLETE but DELETE). */
export const UPDATABLE: readonly string[] = [
  'CREATE_COMPLETE', 'UPDATE_COMPLETE', 'RESUME_COMPLETE', 'RESTORE_COMPLETE', 'ROLLBACK_COMPLETE',
  'SNAPSHOT_COMPLETE', 'CHECK_COMPLETE', 'ADOPT_COMPLETE',
];
/**
 * Resize also from UPDATE_FAILED (Magnum: and UPDATE_IN_PROGRESS, where it
 * would run beside another operation; here one operation runs at a time).
 */
export const RESIZABLE: readonly string[] = [...UPDATABLE, 'UPDATE_FAILED'];
/** Upgrade also from UPDATE_FAILED: the same upgrade asked again resumes where a failure stopped it. */
export const UPGRADABLE: readonly string[] = [...UPDATABLE, 'UPDATE_FAILED'];

export const isInProgress = (s: string) => s.endsWith('_IN_PROGRESS');
export const isFailed = (s: string) => s.endsWith('_FAILED');

export const HEALTH_STATUSES = ['HEALTHY', 'UNHEALTHY', 'UNKNOWN'] as const;

/** The CADF action of an operation (a name in ops/registry.ts); nodegroup operations send none (as Magnum). */
export function cadfActionOf(op: string): 'create' | 'update' | 'delete' | undefined {
  if (op === 'cluster-create') return 'create';
  if (op === 'cluster-delete') return 'delete';
  return op.startsWith('nodegroup-') ? undefined : 'update';
}
