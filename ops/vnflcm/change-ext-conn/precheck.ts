/**
 * ChangeExtVnfConnectivity before anything is written: every CP named is an
 * external CP of the instance's flavour, named once; the stack the merged
 * connectivity makes can be built (a dry run, as instantiate's: a CP whose
 * HOT reads fixed_ips needs them); vimConnectionInfo is not taken here (the
 * instance's VIM is modified with PATCH on /vnflcm/v2).
 */
import { baseHotFiles } from '../../../store/repos/package-files';
import { packageById } from '../../../store/repos/packages';
import { badRequest, conflict, unprocessable } from '../../../common/http-error';
import { buildStack, currentLayout, TemplatePolicyRefused } from '../../../infra/hot';
import { withExtConnectivity } from '../../../infra/hot/ext-links';
import type { InstantiateInput } from '../../../infra/hot';
import type { PrecheckInput, StartPlan } from '../../operation';
import { instantiatedInfo, requireInstantiated, templatePolicyError } from '../instance-checks';
import type { ChangeExtVnfConnectivityRequest } from './request';

export async function precheckChangeExtConn({ db, box, cfg, instance: inst, request: body }: PrecheckInput<ChangeExtVnfConnectivityRequest>): Promise<StartPlan> {
  const { info, flavour } = await instantiatedInfo(db, inst);
  if (!flavour) throw conflict(`the VNFD of VNF instance ${inst.id} is gone`);
  if (body.vimConnectionInfo !== undefined) {
    throw unprocessable('vimConnectionInfo: change_ext_conn does not change the VIM; modify the instance\'s vimConnectionInfo with PATCH /vnflcm/v2/vnf_instances/{id}');
  }
  const seen = new Map<string, string>();
  body.extVirtualLinks.forEach((l, i) => l.extCps.forEach((cp, j) => {
    const at = `extVirtualLinks[${i}].extCps[${j}].cpdId`;
    const cpd = flavour.cps[cp.cpdId];
    if (!cpd) throw badRequest(`${at}: "${cp.cpdId}" is not a CP of flavour ${flavour.flavourId}`);
    if (cpd.virtualLinkId !== undefined) throw badRequest(`${at}: "${cp.cpdId}" is an internal CP (on virtual link ${cpd.virtualLinkId}), not an external one`);
    if (seen.has(cp.cpdId)) throw badRequest(`${at}: "${cp.cpdId}" is already connected by ${seen.get(cp.cpdId)}`);
    seen.set(cp.cpdId, at);
  }));
  if (!inst.instantiateParamsSealed) throw conflict(`VNF instance ${inst.id} has no instantiation record`);
  const current = box.openJson<InstantiateInput>(inst.instantiateParamsSealed);
  const pkg = await packageById(db, inst.vnfPkgId);
  try {
    buildStack(pkg!.vnfd!, flavour, await baseHotFiles(db, inst.vnfPkgId), withExtConnectivity(current, body.extVirtualLinks), currentLayout(info, Object.keys(flavour.vdus)), cfg.heatResourceTypes);
  } catch (e) {
    if (e instanceof TemplatePolicyRefused) throw templatePolicyError(e);
    throw badRequest(`the request does not fit the VNFD: ${(e as Error).message}`);
  }
  return { precondition: requireInstantiated };
}
