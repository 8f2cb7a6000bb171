/** What one project may hold (README, "Quotas"), and the setting that gives each limit; enforced in store/quota.ts. */
export interface Quotas {
  packages: number;
  packageBytes: number;
  instances: number;
  subscriptions: number;
  /** Nodes (masters and workers) of a project's Magnum clusters. */
  clusterNodes: number;
}

export const QUOTA_SETTINGS: Record<keyof Quotas, string> = {
  packages: 'QUOTA_PACKAGES', packageBytes: 'QUOTA_PACKAGE_BYTES', instances: 'QUOTA_INSTANCES',
  subscriptions: 'QUOTA_SUBSCRIPTIONS', clusterNodes: 'QUOTA_CLUSTER_NODES',
};
