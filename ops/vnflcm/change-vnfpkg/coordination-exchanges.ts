/**
 * The exchanges with the EM for one VNFC's coordination (SOL002): POST, GET
 * the Location, cancel; each recorded in the op occ's lcmCoordinations /
 * rejectedLcmCoordinations. Used by the wait's activity and by the worker's
 * coordination poller.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { upsertCoordination } from '../../../store/repos/op-occs';
import { instantiatedInfoOf } from '../../../store/repos/instances';
import { redact } from '../../../common/secrets';
import { cancelCoordination, getCoordination, operatorCoordTls, postCoordination } from '../../../coord/client';
import type { CoordTarget, GetOutcome, PostOutcome } from '../../../coord/client';
import type { LcmCoord, LcmCoordRequest } from '../../../model/coordination';
import type { ActivityDeps } from '../../../lcm-activities/deps';
import { opContext } from '../../../lcm-activities/op-context';
import type { CoordExchanges } from './coordination-wait';
import type { ChangeCurrentVnfPkgRequest, VnfcParam } from './request';

/** Which side's coordinate script and vnfc_param: new after an update, old for a rollback (and for BlueGreen's old VNFCs). */
export type CoordSide = 'new' | 'old';
export interface CoordArgs { opOccId: string; vnfcId: string; isRollback: boolean; side?: CoordSide }
export const coordSide = (a: { isRollback: boolean; side?: CoordSide }): CoordSide => a.side ?? (a.isRollback ? 'old' : 'new');

export const COORDINATION_ACTION = 'prv.tacker_organization.coordination_test';

/** What an exchange needs of the op and its VNFC: the ids and the vnfc_param, with its secrets. */
export type Exchanging = { op: { id: string; vnfInstanceId: string }; param: VnfcParam | undefined };

export function coordinationExchanges({ db, box, cfg }: Pick<ActivityDeps, 'db' | 'box' | 'cfg'>) {
  /** The vnfc_param for a VNFC (new, or old when rolling back), with its secrets. */
  const vnfcParam = async (opOccId: string, vnfcId: string, side: CoordSide) => {
    const ctx = await opContext({ db, box }, opOccId);
    const { op } = ctx;
    const inst = await ctx.instance();
    const vnfc = instantiatedInfoOf(inst).vnfcResourceInfo.find((v) => v.id === vnfcId);
    if (!vnfc) throw ApplicationFailure.nonRetryable(`VNFC ${vnfcId} is gone from instance ${inst.id}`, 'InvalidInput');
    const vp = ctx.params<ChangeCurrentVnfPkgRequest>().additionalParams.vdu_params.find((p) => p.vdu_id === vnfc.vduId);
    return { op, inst, vnfc, param: (side === 'old' ? vp?.old_vnfc_param : vp?.new_vnfc_param) as VnfcParam | undefined };
  };

  // COORD_CA_FILE / COORD_CLIENT_CERT / COORD_CLIENT_KEY read per call (a rotated cert is picked up); the
  // certificate is presented only to the hosts of COORD_CLIENT_CERT_HOSTS (coord/client-auth.ts).
  const coordTarget = (param: VnfcParam): CoordTarget => ({ endpoint: param.endpoint!, authentication: param.authentication, ...operatorCoordTls() });

  const coordRequest = (op: { id: string; vnfInstanceId: string }, vnfcId: string, param: VnfcParam): LcmCoordRequest => ({
    vnfInstanceId: op.vnfInstanceId,
    vnfLcmOpOccId: op.id,
    lcmOperationType: 'CHANGE_VNFPKG',
    coordinationActionName: COORDINATION_ACTION,
    inputParams: { vnfcInstanceId: vnfcId, ...(param.inputParams ?? {}) },
    _links: {
      vnfLcmOpOcc: { href: `${cfg.apiBaseUrl}/vnflcm/v2/vnf_lcm_op_occs/${op.id}` },
      vnfInstance: { href: `${cfg.apiBaseUrl}/vnflcm/v2/vnf_instances/${op.vnfInstanceId}` },
    },
  });

  /** lcmCoordinations[] / rejectedLcmCoordinations[] of the op occ, entries upserted by id. */
  const record = (opOccId: string, list: 'lcmCoordinations' | 'rejectedLcmCoordinations', entry: Record<string, unknown>) => {
    return upsertCoordination(db, opOccId, list, entry);
  };
  const recordResult = (opOccId: string, coord: LcmCoord, delay?: number) => record(opOccId, 'lcmCoordinations', {
    id: coord.id, coordinationActionName: coord.coordinationActionName, coordinationResult: coord.coordinationResult,
    endTime: new Date().toISOString(), endpointType: 'MGMT', ...(delay !== undefined ? { delay } : {}),
  });
  const failure = (e: unknown) => {
    const err = e as { message: string; retryable?: boolean };
    return err.retryable === false ? ApplicationFailure.nonRetryable(err.message, 'CoordinationFailed') : e;
  };

  const exchanging = async (a: CoordArgs): Promise<Exchanging> => {
    const { op, param } = await vnfcParam(a.opOccId, a.vnfcId, coordSide(a));
    return { op: { id: op.id, vnfInstanceId: op.vnfInstanceId }, param };
  };

  const exchangesWith = (load: (a: CoordArgs) => Promise<Exchanging>): CoordExchanges<CoordArgs> => ({
    async post(a) {
      const { opOccId, vnfcId } = a;
      const { op, param } = await load(a);
      if (!param?.endpoint) throw ApplicationFailure.nonRetryable(`no coordination endpoint for VNFC ${vnfcId}`, 'InvalidInput');
      const started = new Date().toISOString();
      let o: PostOutcome;
      try {
        o = await postCoordination(coordTarget(param), coordRequest(op, vnfcId, param));
      } catch (e) {
        throw failure(e);
      }
      if (o.kind === 'busy') {
        await record(opOccId, 'rejectedLcmCoordinations', { coordinationActionName: COORDINATION_ACTION, rejectionTime: started, endpointType: 'MGMT', delay: Math.round(o.retryAfterMs / 1000) });
      } else if (o.kind === 'async') {
        await record(opOccId, 'lcmCoordinations', { id: o.location.split('/').pop(), coordinationActionName: COORDINATION_ACTION, startTime: started, endpointType: 'MGMT', delay: Math.round(o.retryAfterMs / 1000) });
      } else {
        await record(opOccId, 'lcmCoordinations', { id: o.coord.id, coordinationActionName: o.coord.coordinationActionName, startTime: started, endpointType: 'MGMT' });
        await recordResult(opOccId, o.coord);
      }
      return redact(o);
    },

    async get(a) {
      const { opOccId, location } = a;
      const { param } = await load(a);
      let o: GetOutcome;
      try {
        o = await getCoordination(coordTarget(param!), location);
      } catch (e) {
        throw failure(e);
      }
      if (o.kind === 'result') await recordResult(opOccId, o.coord);
      return redact(o);
    },

    async cancel(a) {
      const { opOccId, location } = a;
      const { param } = await load(a);
      await cancelCoordination(coordTarget(param!), location);
      await record(opOccId, 'lcmCoordinations', { id: location.split('/').pop(), coordinationResult: 'CANCELLED', endTime: new Date().toISOString() });
    },
  });
  return { exchanging, exchangesWith, exchanges: exchangesWith(exchanging) };
}
