/**
 * change_vnfpkg coordinate scripts from the package (Tacker's
 * coordinate_vnf.py contract: a JSON document on stdin instead of a pickle).
 * The worker prepares the job (the script, the VNFC's vnfc_param with its
 * secrets and SSH address, the LcmCoordRequest) and seals it; the scripts
 * worker runs it (lcm-activities/scripts.ts). Nothing runs here.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ChangeCurrentVnfPkgRequest, VnfcParam } from './request';
import { packageFile } from '../../../store/repos/package-files';
import { heatForVim } from '../../../infra/vim';
import { vnfcAddress } from '../../../infra/vnfc-address';
import { scriptChannelKeyFor, sealScriptJob } from '../../../mgmt/script-channel';
import { scriptLimits, scriptReach } from '../../../mgmt/script-job';
import { scriptSecrets } from '../../../mgmt/script-mask';
import { coordSide, scriptPath, type CoordSide } from './activities';
import type { ActivityDeps } from '../../../lcm-activities/deps';
import { opContext } from '../../../lcm-activities/op-context';
import { instantiatedInfoOf } from '../../../store/repos/instances';

interface CoordScriptArgs { opOccId: string; vnfcId: string; isRollback: boolean; side?: CoordSide; packageId: string; timeoutMs: number }

export function coordinateScriptActivities(deps: ActivityDeps) {
  const { db, box, cfg } = deps;
  let channelKey: Buffer | undefined;

  return {
    /** The coordinate script's job for one VNFC, sealed for the scripts worker (ciphertext only in history). */
    async prepareCoordinateScript(a: CoordScriptArgs): Promise<{ name: string; sealed: string }> {
      const { opOccId, vnfcId, isRollback, packageId, timeoutMs } = a;
      const old = coordSide(a) === 'old';
      const ctx = await opContext({ db, box }, opOccId);
      const { op } = ctx;
      const inst = await ctx.instance();
      const info = instantiatedInfoOf(inst);
      const vnfc = info.vnfcResourceInfo.find((v) => v.id === vnfcId);
      if (!vnfc) throw ApplicationFailure.nonRetryable(`VNFC ${vnfcId} is gone from instance ${inst.id}`, 'InvalidInput');
      const req = ctx.params<ChangeCurrentVnfPkgRequest>();
      const vp = req.additionalParams.vdu_params.find((p) => p.vdu_id === vnfc.vduId);
      const param = (old ? vp?.old_vnfc_param : vp?.new_vnfc_param) as VnfcParam | undefined;
      const file = scriptPath(old ? req.additionalParams['lcm-operation-coordinate-old-vnf'] : req.additionalParams['lcm-operation-coordinate-new-vnf'])!;
      const content = await packageFile(db, packageId, file);
      if (!content) throw ApplicationFailure.nonRetryable(`coordinate script ${file} is not in package ${packageId}`, 'InvalidInput');
      const flavour = (await ctx.vnfd()).flavours[info.flavourId];
      const address = param && flavour?.cps[param.cp_name]?.vduId === vnfc.vduId ? await vnfcAddress(await heatForVim(db, box, inst.vimId!), vnfc, param.cp_name) : undefined;
      const input = {
        vnfc_param: { ...param, ssh_ip: address }, is_rollback: isRollback, vnfc_id: vnfcId,
        LcmCoordRequest: {
          vnfInstanceId: op.vnfInstanceId,
          vnfLcmOpOccId: op.id,
          lcmOperationType: 'CHANGE_VNFPKG',
          coordinationActionName: '',
          inputParams: { vnfcInstanceId: vnfcId, ...(param?.inputParams ?? {}) },
          _links: {
            vnfLcmOpOcc: { href: `${cfg.apiBaseUrl}/vnflcm/v2/vnf_lcm_op_occs/${op.id}` },
            vnfInstance: { href: `${cfg.apiBaseUrl}/vnflcm/v2/vnf_instances/${op.vnfInstanceId}` },
          },
        },
      };
      const secrets = [
        ...scriptSecrets(input),
        ...[param?.password, param?.authentication?.paramsBasic?.password, param?.authentication?.paramsOauth2ClientCredentials?.clientPassword].filter((s): s is string => !!s),
      ];
      channelKey ??= scriptChannelKeyFor(cfg.dataDir);
      const sealed = sealScriptJob(channelKey, {
        name: file, script: content, stdin: JSON.stringify(input), secrets: [...new Set(secrets)],
        limits: scriptLimits(cfg, timeoutMs), reach: scriptReach(cfg, info, [address]), project: inst.projectId,
      }, `coordinate script for VNFC ${vnfcId}:`);
      return { name: file, sealed };
    },

    /** Asked only by a workflow recorded before scripts moved to the scripts worker; its retry takes the new path. */
    async runCoordinateScript(_: CoordScriptArgs): Promise<void> {
      throw ApplicationFailure.nonRetryable('coordinate scripts run on the scripts worker now; retry the operation', 'ScriptsMoved');
    },
  };
}

export type CoordinateScriptActivities = ReturnType<typeof coordinateScriptActivities>;
