/**
 * Whether a notification matches a subscription's LifecycleChangeNotificationsFilter
 * (SOL003 5.5.3.12 / VnfInstanceSubscriptionFilter 4.4.1.5): every attribute
 * given must match (AND), any entry of a list may (OR). operationTypes and
 * operationStates concern VnfLcmOperationOccurrenceNotification only; the
 * identifier notifications pass them.
 */
import type { LifecycleChangeNotificationsFilter, NotificationType } from '../../model/subscriptions';

export interface InstanceFacts {
  id: string;
  vnfInstanceName: string | null;
  vnfdId: string;
  vnfProvider: string;
  vnfProductName: string;
  vnfSoftwareVersion: string;
  vnfdVersion: string;
}

export interface NotificationFacts {
  notificationType: NotificationType;
  instance: InstanceFacts;
  operation?: string;
  operationState?: string;
}

export function matchesFilter(f: LifecycleChangeNotificationsFilter | null | undefined, n: NotificationFacts): boolean {
  if (!f) return true;
  if (f.notificationTypes?.length && !f.notificationTypes.includes(n.notificationType)) return false;
  if (n.notificationType === 'VnfLcmOperationOccurrenceNotification') {
    if (f.operationTypes?.length && !f.operationTypes.includes(n.operation as never)) return false;
    if (f.operationStates?.length && !f.operationStates.includes(n.operationState as never)) return false;
  }
  return matchesInstance(f.vnfInstanceSubscriptionFilter, n.instance);
}

function matchesInstance(f: LifecycleChangeNotificationsFilter['vnfInstanceSubscriptionFilter'], i: InstanceFacts): boolean {
  if (!f) return true;
  if (f.vnfdIds?.length && !f.vnfdIds.includes(i.vnfdId)) return false;
  if (f.vnfInstanceIds?.length && !f.vnfInstanceIds.includes(i.id)) return false;
  if (f.vnfInstanceNames?.length && !f.vnfInstanceNames.includes(i.vnfInstanceName ?? '')) return false;
  if (f.vnfProductsFromProviders?.length) {
    const any = f.vnfProductsFromProviders.some((p) => p.vnfProvider === i.vnfProvider && (!p.vnfProducts?.length || p.vnfProducts.some((prod) =>
      prod.vnfProductName === i.vnfProductName && (!prod.versions?.length || prod.versions.some((v) =>
        v.vnfSoftwareVersion === i.vnfSoftwareVersion && (!v.vnfdVersions?.length || v.vnfdVersions.includes(i.vnfdVersion)))))));
    if (!any) return false;
  }
  return true;
}
