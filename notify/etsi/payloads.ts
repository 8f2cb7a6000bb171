/**
 * The SOL003 notification bodies (VnfLcmOperationOccurrenceNotification,
 * VnfIdentifierCreationNotification, VnfIdentifierDeletionNotification) in
 * the shape of the API the subscription was made through: v1 (SOL003 2.6.1)
 * or v2 (3.3.1: verbosity). `_links` are absolute URIs under API_BASE_URL.
 * notificationStatus: START when the occurrence starts (STARTING), RESULT for
 * every later state, intermediate (PROCESSING, FAILED_TEMP, ROLLING_BACK) or
 * final (COMPLETED, FAILED, ROLLED_BACK), as SOL003 defines them.
 */
import type { OpOccRow } from '../../store/repos/rows';
import type { SubscriptionRow } from '../../store/repos/subscriptions';
import type { NotificationType } from '../../model/subscriptions';

export type LcmEvent =
  | { notificationType: 'VnfLcmOperationOccurrenceNotification'; vnfInstanceId: string; op: OpOccRow; state: string }
  | { notificationType: 'VnfIdentifierCreationNotification' | 'VnfIdentifierDeletionNotification'; vnfInstanceId: string };

const href = (href: string) => ({ href });

export function notificationStatusOf(state: string): 'START' | 'RESULT' {
  return state === 'STARTING' ? 'START' : 'RESULT';
}

export function lcmPayload(id: string, sub: Pick<SubscriptionRow, 'id' | 'apiVersion' | 'verbosity'>, e: LcmEvent, apiBaseUrl: string, at: Date): Record<string, unknown> {
  const base = `${apiBaseUrl}/vnflcm/${sub.apiVersion}`;
  const links = { vnfInstance: href(`${base}/vnf_instances/${e.vnfInstanceId}`), subscription: href(`${base}/subscriptions/${sub.id}`) };
  const head = { id, notificationType: e.notificationType as NotificationType, subscriptionId: sub.id, timeStamp: at.toISOString() };
  if (e.notificationType !== 'VnfLcmOperationOccurrenceNotification') return { ...head, vnfInstanceId: e.vnfInstanceId, _links: links };
  const status = notificationStatusOf(e.state);
  const verbosity = sub.apiVersion === 'v2' ? (sub.verbosity ?? 'FULL') : undefined;
  const full = verbosity !== 'SHORT' && status === 'RESULT';
  const changes = (e.op.resourceChanges ?? {}) as Record<string, unknown>;
  return {
    ...head,
    notificationStatus: status,
    operationState: e.state,
    vnfInstanceId: e.vnfInstanceId,
    operation: e.op.operation,
    isAutomaticInvocation: e.op.isAutomaticInvocation,
    ...(verbosity ? { verbosity } : {}),
    vnfLcmOpOccId: e.op.id,
    ...(full ? pick(changes, ['affectedVnfcs', 'affectedVirtualLinks', 'affectedExtLinkPorts', 'affectedVirtualStorages']) : {}),
    ...(full && e.op.changedInfo ? { changedInfo: e.op.changedInfo } : {}),
    ...(status === 'RESULT' && e.op.error && (e.state === 'FAILED_TEMP' || e.state === 'FAILED') ? { error: e.op.error } : {}),
    _links: { ...links, vnfLcmOpOcc: href(`${base}/vnf_lcm_op_occs/${e.op.id}`) },
  };
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => Array.isArray(o[k]) && (o[k] as unknown[]).length).map((k) => [k, o[k]]));
}
