/** All activities, built once per worker from its dependencies. */
import type { ActivityDeps } from './deps';
import { autoHealActivities } from './auto-heal';
import { changeVnfpkgActivities } from '../ops/vnflcm/change-vnfpkg/activities';
import { coordinateScriptActivities } from '../ops/vnflcm/change-vnfpkg/coordinate-script';
import { hookActivities } from './hooks';
import { instanceActivities } from './instance';
import { opStateActivities } from './op-state';
import { packageActivities } from '../ops/vnfpkgm/onboard/activities';
import { scaleActivities } from '../ops/vnflcm/scale/activities';
import { modifyInfoActivities } from '../ops/vnflcm/modify-info/activities';
import { changeExtConnActivities } from '../ops/vnflcm/change-ext-conn/activities';
import { stackActivities } from './stack';
import { clusterActivities } from '../cluster/activities';
import { magnumActivities } from '../ops/magnum/shared/activities';
import { notifyActivities } from '../notify/activities';

export function createActivities(deps: ActivityDeps) {
  return {
    ...opStateActivities(deps),
    ...stackActivities(deps),
    ...instanceActivities(deps),
    ...hookActivities(deps),
    ...packageActivities(deps),
    ...scaleActivities(deps),
    ...modifyInfoActivities(deps),
    ...changeExtConnActivities(deps),
    ...changeVnfpkgActivities(deps),
    ...coordinateScriptActivities(deps),
    ...clusterActivities(deps),
    ...magnumActivities(deps),
    ...notifyActivities(deps),
    ...autoHealActivities(deps),
  };
}

export type LcmActivities = ReturnType<typeof createActivities>;
export type { ActivityDeps };
