/**
 * ChangeCurrentVnfPkg: the target package is the project's, enabled and not
 * the current one, it has the instance's flavour and every VDU named, each
 * coordination endpoint passes the outbound policy, and every coordinate script
 * named is a file of its package, its templates use only the resource types
 * allowed (HEAT_RESOURCE_TYPES, 422); BlueGreen only for VDUs with a resource per VNFC.
 * The target is held IN_USE with the op occ.
 */
import type { Store } from '../../../store';
import { hasPackageFile } from '../../../store/repos/package-files';
import { packageForVnfd } from '../../../store/repos/packages';
import { holdChangeTarget } from '../../../store/package-usage';
import { badRequest, conflict, unprocessable } from '../../../common/http-error';
import { coordinationTargetProblem } from '../../../coord/client';
import { mappedDriver, scriptPath } from '../../../mgmt/mapping';
import type { PrecheckInput, StartPlan } from '../../operation';
import { instantiatedInfo, requireAllowedTemplates, requireInstantiated } from '../instance-checks';
import type { ChangeCurrentVnfPkgRequest } from './request';

export async function precheckChangeVnfpkg({ db, cfg, instance: inst, request: body }: PrecheckInput<ChangeCurrentVnfPkgRequest>): Promise<StartPlan> {
  const { info } = await instantiatedInfo(db, inst);
  const target = await packageForVnfd(db, { projectId: inst.projectId, all: false }, body.vnfdId);
  if (!target) throw unprocessable(`vnfdId: no onboarded VNF package of the instance's project has vnfdId ${body.vnfdId}`);
  if (target.operationalState !== 'ENABLED') throw conflict(`VNF package ${target.id} (vnfdId ${body.vnfdId}) is DISABLED`);
  if (target.id === inst.vnfPkgId) throw unprocessable(`vnfdId: VNF instance ${inst.id} already uses package ${target.id}`);
  const flavour = target.vnfd!.flavours[info.flavourId];
  if (!flavour) throw unprocessable(`vnfdId: the new VNFD has no flavour ${info.flavourId}, the instance's flavour`);
  body.additionalParams.vdu_params.forEach((p, i) => {
    if (!flavour.vdus[p.vdu_id]) throw badRequest(`additionalParams.vdu_params[${i}].vdu_id: "${p.vdu_id}" is not a VDU of flavour ${info.flavourId}`);
    for (const side of ['old_vnfc_param', 'new_vnfc_param'] as const) {
      const param = p[side];
      const problem = param && coordinationTargetProblem({ endpoint: param.endpoint ?? '', authentication: param.authentication });
      if (problem) throw badRequest(`additionalParams.vdu_params[${i}].${side}: ${problem}`);
    }
    // The new VNFCs of a BlueGreen update are resources beside the old ones; a group's members can't be told apart that way.
    if (body.additionalParams.upgrade_type === 'BlueGreen' && info.vnfcResourceInfo.some((v) => v.vduId === p.vdu_id && v.metadata.groupStackId)) {
      throw unprocessable(`additionalParams.vdu_params[${i}].vdu_id: VDU ${p.vdu_id} is an AutoScalingGroup; BlueGreen needs one resource per VNFC, use RollingUpdate`);
    }
  });
  await checkCoordinateScripts(db, body.additionalParams, { new: target.id, old: inst.vnfPkgId });
  await requireAllowedTemplates(db, target.id, info.flavourId, cfg.heatResourceTypes);
  return {
    precondition: requireInstantiated,
    // the target stays IN_USE until the op ends: it cannot be deleted in the middle of the rolling update
    write: async (q) => { const problem = await holdChangeTarget(q, target.id); if (problem) throw conflict(problem); },
  };
}

/**
 * 422 when a coordinate script named in the request is not a file of its package
 * (the new package's for the update, the current one's for the rollback): the workflow could
 * not plan the operation. Names mapped to the built-in coordination action need no file.
 */
async function checkCoordinateScripts(db: Store, params: ChangeCurrentVnfPkgRequest['additionalParams'], packages: { new: string; old: string }): Promise<void> {
  for (const side of ['new', 'old'] as const) {
    const field = `lcm-operation-coordinate-${side}-vnf` as const;
    const path = scriptPath(params[field]);
    if (!path || mappedDriver(path) === 'coordination') continue;
    if (!(await hasPackageFile(db, packages[side], path))) throw unprocessable(`additionalParams.${field}: "${params[field]}" is not a file of VNF package ${packages[side]} (the ${side === 'new' ? 'target' : 'current'} package)`);
  }
}
