/**
 * Per-project quotas (README, "Quotas"): what one project may hold of the
 * deployment's shared capacity. Each is checked in the transaction that adds
 * to it (serializable on PostgreSQL, one writer on SQLite), so a refusal
 * writes nothing and two racing requests cannot both pass the last unit.
 * Answered 403, naming the limit and its setting.
 */
import { formatBytes } from '../common/sizes';
import { QUOTA_SETTINGS, type Quotas } from '../common/settings/quotas';

const NOUNS: Record<keyof Quotas, string> = {
  packages: 'VNF packages', packageBytes: 'of package content', instances: 'VNF instances', subscriptions: 'subscriptions', clusterNodes: 'cluster nodes',
};

export class QuotaExceeded extends Error {
  readonly status = 403;

  constructor(readonly resource: keyof Quotas, readonly limit: number, used: number, adding: number) {
    const show = (n: number) => (resource === 'packageBytes' ? formatBytes(n) : String(n));
    super(`Quota exceeded: the project holds ${show(used)} ${NOUNS[resource]} and this adds ${show(adding)}, `
      + `over its limit of ${show(limit)} (${QUOTA_SETTINGS[resource]}).`);
  }
}

/** Throws QuotaExceeded when `used + adding` is over `limit`. */
export function checkQuota(resource: keyof Quotas, limit: number, used: number, adding = 1): void {
  if (used + adding > limit) throw new QuotaExceeded(resource, limit, used, adding);
}
