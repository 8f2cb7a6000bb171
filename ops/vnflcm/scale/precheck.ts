/** ScaleVnf: the scale can be planned on the instance as it is (400 for an unknown aspect, 422 beyond the aspect's levels or for a package template with a resource type not allowed). */
import { badRequest, conflict, unprocessable } from '../../../common/http-error';
import { planScale } from '../../../infra/scale-plan';
import type { PrecheckInput, StartPlan } from '../../operation';
import { instantiatedInfo, requireAllowedTemplates, requireInstantiated } from '../instance-checks';
import type { ScaleVnfRequest } from './request';

export async function precheckScale({ db, cfg, instance, request }: PrecheckInput<ScaleVnfRequest>): Promise<StartPlan> {
  const { info, flavour } = await instantiatedInfo(db, instance);
  if (!flavour) throw conflict(`the VNFD of VNF instance ${instance.id} is gone`);
  try {
    planScale(flavour, info, request);
  } catch (e) {
    const msg = (e as Error).message;
    throw msg.startsWith('aspectId') ? badRequest(msg) : unprocessable(msg);
  }
  await requireAllowedTemplates(db, instance.vnfPkgId, info.flavourId, cfg.heatResourceTypes);
  return { precondition: requireInstantiated };
}
