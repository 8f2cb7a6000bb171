/**
 * ScaleVnf: the scale can be planned on the instance as it is (400 for an unknown aspect, 422 beyond the
 * aspect's levels, for a package template with a resource type not allowed, or for an aspect the flavour's
 * built-in Mgmt Driver does not scale, such as the Kubernetes masters).
 */
import type { Store } from '../../../store';
import { packageFile } from '../../../store/repos/package-files';
import type { InstanceRow } from '../../../store/repos/instances';
import { badRequest, conflict, unprocessable } from '../../../common/http-error';
import type { SecretBox } from '../../../common/secrets';
import { resolveHookSpec } from '../../../mgmt/specs';
import type { VnfdFlavour } from '../../../model/vnfd';
import { planScale } from '../../../infra/scale-plan';
import type { PrecheckInput, StartPlan } from '../../operation';
import { instantiatedInfo, requireAllowedTemplates, requireInstantiated } from '../instance-checks';
import type { ScaleVnfRequest } from './request';

export async function precheckScale({ db, box, cfg, instance, request }: PrecheckInput<ScaleVnfRequest>): Promise<StartPlan> {
  const { info, flavour } = await instantiatedInfo(db, instance);
  if (!flavour) throw conflict(`the VNFD of VNF instance ${instance.id} is gone`);
  try {
    planScale(flavour, info, request);
  } catch (e) {
    const msg = (e as Error).message;
    throw msg.startsWith('aspectId') ? badRequest(msg) : unprocessable(msg);
  }
  await requireAllowedTemplates(db, instance.vnfPkgId, info.flavourId, cfg.heatResourceTypes);
  const refused = await driverRefusal(db, box, instance, flavour, request.aspectId);
  if (refused) throw unprocessable(refused);
  return { precondition: requireInstantiated };
}

/** A built-in Mgmt Driver bound to the flavour's hooks that cannot follow a scale of this aspect says why. */
async function driverRefusal(db: Store, box: SecretBox, instance: InstanceRow, flavour: VnfdFlavour, aspectId: string): Promise<string | undefined> {
  if (!instance.instantiateParamsSealed) return undefined;
  const { additionalParams = {} } = box.openJson<{ additionalParams?: Record<string, unknown> }>(instance.instantiateParamsSealed);
  for (const binding of Object.values(flavour.hooks)) {
    const runner = await resolveHookSpec(binding!, (p) => packageFile(db, instance.vnfPkgId, p));
    if (runner.kind !== 'builtin' || !runner.driver.checkScale || !runner.driver.instantiateParams) continue;
    const params = runner.driver.instantiateParams.safeParse(additionalParams);
    const why = params.success ? runner.driver.checkScale(params.data, aspectId) : undefined;
    if (why) return why;
  }
  return undefined;
}
