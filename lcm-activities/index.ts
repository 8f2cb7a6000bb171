/**
 * The activities every ETSI operation's workflow calls through the shared
 * proxies (workflow-steps/activities.ts): op state, Heat stacks, instance
 * records, LCM hooks. An operation's own activities live in its folder
 * (ops/<api>/<operation>/activities.ts) and its workflow proxies them by
 * their own type; worker/activities.ts puts them all together.
 */
import type { ActivityDeps } from './deps';
import { hookActivities } from './hooks';
import { instanceActivities } from './instance';
import { opStateActivities, type RequestSchemaOf } from './op-state';
import { stackActivities } from './stack';

export function createLcmActivities(deps: ActivityDeps, requestSchemaOf: RequestSchemaOf) {
  return {
    ...opStateActivities(deps, requestSchemaOf),
    ...stackActivities(deps),
    ...instanceActivities(deps),
    ...hookActivities(deps),
  };
}

export type LcmActivities = ReturnType<typeof createLcmActivities>;
export type { ActivityDeps };
