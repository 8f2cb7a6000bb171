/** The cluster engine's activities (docs/cluster-engine.md), built once per worker. */
import type { ActivityDeps } from '../../lcm-activities/deps';
import { healthActivities } from './health';
import { nodeActivities } from './nodes';
import { rotateActivities } from './rotate';
import { upgradeActivities } from './upgrade';
import { vimActivities } from './vim';
import { vnfClusterActivities } from './vnf-cluster';

export function clusterActivities(deps: ActivityDeps) {
  return {
    ...nodeActivities(deps),
    ...vnfClusterActivities(deps),
    ...vimActivities(deps),
    ...rotateActivities(deps),
    ...healthActivities(deps),
    ...upgradeActivities(deps),
  };
}

export type ClusterActivities = ReturnType<typeof clusterActivities>;
