/**
 * What the API's metrics gauges show (common/metrics.ts, api/metrics.ts),
 * counted in SQL at scrape time: operations by state, coordinations parked,
 * the notification outbox's backlog and its oldest row, clusters by health.
 * Each reads an index (op occs by state; drizzle 0017: the outbox by state
 * and age, Magnum clusters by status), not the rows an installation
 * gathers over years; the clusters table is small (one row per cluster).
 */
import { count, eq, inArray, min } from 'drizzle-orm';
import { CLUSTER_STATUSES, HEALTH_STATUSES, isInProgress } from '../../model/magnum/status';
import type { Store } from '../store';

/** The ETSI states an operation is in while it has not ended. */
export const ETSI_OPEN_STATES = ['STARTING', 'PROCESSING', 'ROLLING_BACK', 'FAILED_TEMP'] as const;

/** Magnum's statuses of a cluster an operation is running on. */
export const MAGNUM_IN_PROGRESS = CLUSTER_STATUSES.filter(isInProgress);

export interface StoreGauges {
  etsiByState: Record<string, number>;
  magnumInProgress: Record<string, number>;
  /** When the longest-parked FAILED_TEMP operation entered that state (ISO), if any. */
  failedTempOldest?: string;
  parkedOnCoordination: number;
  outboxBacklog: number;
  /** When the oldest undelivered notification was written (ISO), if any. */
  outboxOldest?: string;
  clustersByHealth: Record<string, number>;
}

export function readStoreGauges(store: Store): Promise<StoreGauges> {
  return store.read(async ({ db, t }) => {
    const ops = await db.select({ state: t.vnfLcmOpOccs.operationState, n: count() }).from(t.vnfLcmOpOccs)
      .where(inArray(t.vnfLcmOpOccs.operationState, [...ETSI_OPEN_STATES])).groupBy(t.vnfLcmOpOccs.operationState);
    const magnum = await db.select({ status: t.magnumClusters.status, n: count() }).from(t.magnumClusters)
      .where(inArray(t.magnumClusters.status, MAGNUM_IN_PROGRESS)).groupBy(t.magnumClusters.status);
    const [failedTemp] = await db.select({ oldest: min(t.vnfLcmOpOccs.stateEnteredTime) }).from(t.vnfLcmOpOccs)
      .where(eq(t.vnfLcmOpOccs.operationState, 'FAILED_TEMP'));
    const [parked] = await db.select({ n: count() }).from(t.coordinationWaits);
    const [outbox] = await db.select({ n: count(), oldest: min(t.notificationOutbox.createdAt) }).from(t.notificationOutbox)
      .where(eq(t.notificationOutbox.state, 'PENDING'));
    const health = await db.select({ health: t.clusters.healthStatus, n: count() }).from(t.clusters).groupBy(t.clusters.healthStatus);
    const byHealth = Object.fromEntries(HEALTH_STATUSES.map((h) => [h, 0]));
    for (const h of health) byHealth[h.health ?? 'UNKNOWN'] += Number(h.n);
    return {
      etsiByState: Object.fromEntries(ETSI_OPEN_STATES.map((s) => [s, Number(ops.find((o) => o.state === s)?.n ?? 0)])),
      magnumInProgress: Object.fromEntries(MAGNUM_IN_PROGRESS.map((s) => [s, Number(magnum.find((m) => m.status === s)?.n ?? 0)])),
      failedTempOldest: failedTemp?.oldest ?? undefined,
      parkedOnCoordination: Number(parked?.n ?? 0),
      outboxBacklog: Number(outbox?.n ?? 0),
      outboxOldest: outbox?.oldest ?? undefined,
      clustersByHealth: byHealth,
    };
  });
}
