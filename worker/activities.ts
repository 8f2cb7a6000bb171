/** Every activity the worker runs, built once from its dependencies: the shared LCM ones and each operation's and engine's own. */
import { createLcmActivities, type ActivityDeps } from '../lcm-activities';
import { autoHealActivities } from '../ops/auto-heal';
import { clusterActivities } from '../cluster/activities';
import { notifyActivities } from '../notify/activities';
import { magnumActivities } from '../ops/magnum/shared/activities';
import { changeExtConnActivities } from '../ops/vnflcm/change-ext-conn/activities';
import { changeVnfpkgActivities } from '../ops/vnflcm/change-vnfpkg/activities';
import { coordinateScriptActivities } from '../ops/vnflcm/change-vnfpkg/coordinate-script';
import { modifyInfoActivities } from '../ops/vnflcm/modify-info/activities';
import { scaleActivities } from '../ops/vnflcm/scale/activities';
import { packageActivities } from '../ops/vnfpkgm/onboard/activities';
import { requestSchemaOf } from '../ops/registry';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createLcmActivities(deps, requestSchemaOf),
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
