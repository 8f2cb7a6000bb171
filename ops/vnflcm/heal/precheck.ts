/** HealVnf: every VNFC the request names is one of the instance's (400 naming the entry); the package's templates are allowed (422). */
import { badRequest } from '../../../common/http-error';
import type { PrecheckInput, StartPlan } from '../../operation';
import { instantiatedInfo, requireAllowedTemplates, requireInstantiated } from '../instance-checks';
import type { HealVnfRequest } from './request';

export async function precheckHeal({ db, cfg, instance, request }: PrecheckInput<HealVnfRequest>): Promise<StartPlan> {
  const { info } = await instantiatedInfo(db, instance);
  const known = new Set([...info.vnfcResourceInfo.map((v) => v.id), ...info.vnfcInfo.map((v) => v.id)]);
  ([] as string[]).concat(request.vnfcInstanceId ?? []).forEach((vnfcId, i) => {
    if (!known.has(vnfcId)) throw badRequest(`vnfcInstanceId${Array.isArray(request.vnfcInstanceId) ? `[${i}]` : ''}: "${vnfcId}" is not a VNFC of VNF instance ${instance.id}`);
  });
  await requireAllowedTemplates(db, instance.vnfPkgId, info.flavourId, cfg.heatResourceTypes);
  return { precondition: requireInstantiated };
}
