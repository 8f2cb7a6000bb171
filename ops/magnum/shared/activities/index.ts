/** Every activity of the Magnum operations, built once per worker. */
import type { ActivityDeps } from '../../../../lcm-activities/deps';
import { cadfActivities } from './cadf';
import { clusterActivities } from './cluster';
import { resizeActivities } from './resize';
import { stackActivities } from './stack';
import { statusActivities } from './status';
import { upgradeActivities } from './upgrade';

export function magnumActivities(deps: ActivityDeps) {
  return {
    ...statusActivities(deps),
    ...cadfActivities(deps),
    ...clusterActivities(deps),
    ...stackActivities(deps),
    ...resizeActivities(deps),
    ...upgradeActivities(deps),
  };
}

export type MagnumActivities = ReturnType<typeof magnumActivities>;
