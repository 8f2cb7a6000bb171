/**
 * The Magnum status policy: <ACTION>_IN_PROGRESS -> <ACTION>_COMPLETE, and a
 * failure ends in <ACTION>_FAILED with a status_reason that names the failed
 * step (step names name the node: "join of worker 2 (10.0.0.7)") and the
 * cause. With automatic rollback (Magnum's `?rollback=True`) a failure first
 * undoes what was done: ROLLBACK_IN_PROGRESS -> ROLLBACK_COMPLETE, or
 * ROLLBACK_FAILED; status_reason keeps the failure that caused it. Nothing
 * parks: Magnum has no operator decisions on a running operation.
 */
import { proxyActivities, proxyLocalActivities, upsertSearchAttributes, workflowInfo, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import { localUnder } from '../workflow-steps/activities';
import { SA_CLUSTER_STATUS } from '../common/search-attributes';
import { runSaga, type Plan, type SagaStatus, type StatePolicy } from './saga';

export type ClusterAction = 'CREATE' | 'UPDATE' | 'DELETE';

export interface ClusterStatusRecord {
  clusterId: string;
  status: string;
  /** Empty while in progress; the failed step and its cause on failure. */
  statusReason: string;
  /** When the operation's workflow started (its duration's metric); absent in operations started before it was sent. */
  startedAt?: string;
}

/** The activity a cluster operation records its status with (implemented beside the cluster store). */
export interface ClusterStatusActivities {
  recordClusterStatus(r: ClusterStatusRecord): Promise<void>;
}

const STORE: ActivityOptions & LocalActivityOptions = { startToCloseTimeout: '30s', retry: { initialInterval: '1s', maximumInterval: '10s' } };
/** Status writes are local activities, as the ETSI op occ's are (workflow-steps/activities.ts bookkeeping). */
const statusWrites = localUnder('cluster-status-writes-local', proxyActivities<ClusterStatusActivities>(STORE), proxyLocalActivities<ClusterStatusActivities>(STORE));

/** Magnum's status for a phase; a failure during the automatic rollback is ROLLBACK_FAILED. */
function statusOf(action: ClusterAction, s: Pick<SagaStatus, 'phase' | 'rollingBack'>): string {
  switch (s.phase) {
    case 'starting': case 'running': return `${action}_IN_PROGRESS`;
    case 'completed': return `${action}_COMPLETE`;
    case 'rollingBack': return 'ROLLBACK_IN_PROGRESS';
    case 'rolledBack': return 'ROLLBACK_COMPLETE';
    case 'failed': return s.rollingBack ? 'ROLLBACK_FAILED' : `${action}_FAILED`;
    case 'parked': return `${action}_FAILED`; // never entered: this policy does not park
  }
}

export function magnumStatusPolicy(clusterId: string, action: ClusterAction, autoRollback: boolean): StatePolicy {
  const record = async (s: SagaStatus) => {
    const status = statusOf(action, s);
    upsertSearchAttributes([{ key: SA_CLUSTER_STATUS, value: status }]);
    await statusWrites().recordClusterStatus({ clusterId, status, statusReason: s.error?.detail ?? '', startedAt: workflowInfo().startTime.toISOString() });
  };
  return {
    onFailure: autoRollback ? 'rollback' : 'fail',
    label: (phase) => statusOf(action, { phase, rollingBack: false }),
    enter: record,
    // Magnum shows no current step; the reason names the step once one fails.
    async stepStarted() { /* nothing to record */ },
    async cancelRequested() { /* no cancel in Magnum's API */ },
  };
}

/** Runs a cluster operation; returns its final Magnum status. */
export async function runClusterOperation(clusterId: string, action: ClusterAction, autoRollback: boolean, plan: Plan): Promise<string> {
  const end = await runSaga(magnumStatusPolicy(clusterId, action, autoRollback), plan);
  return statusOf(action, end);
}
