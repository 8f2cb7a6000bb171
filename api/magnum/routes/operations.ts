/**
 * Every Magnum operation on an existing cluster that declares a route
 * (ops/registry.ts, ops/magnum/<operation>/index.ts): the microversion it
 * needs, the cluster (and nodegroup) the path names as the caller sees them,
 * the body checked with Magnum's texts, the operation's precheck, then the
 * operation recorded and its workflow started (api/magnum/operations.ts).
 * Every refusal is answered at once, never as a 202 that only logs it.
 */
import { Router, type Request, type Response } from 'express';
import type { MagnumClusterRow } from '../../../store/repos/magnum/clusters';
import { nodegroupsOf } from '../../../store/repos/magnum/clusters';
import { badRequest } from '../../../common/http-error';
import { PatchBody } from '../../../model/magnum/cluster';
import type { MagnumOperationModule, MagnumPrecheckInput, MagnumRoute } from '../../../ops/magnum/operation';
import { clusterFacts } from '../../../ops/magnum/shared/cluster-facts';
import { MAGNUM_CLUSTER_OPERATIONS, type MagnumOperation } from '../../../ops/registry';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { magnumBody, magnumBoolQuery } from '../body';
import { callerOf, tokenOf } from '../caller';
import { findCluster, findNodegroup, findTemplate, lookupsFor } from '../lookups';
import { requireVersion, versionOf } from '../microversion';
import { startMagnumOperation, stopOperation } from '../operations';
import { nodegroupDict } from '../views/cluster';

const NOT_A_PATCH = 'Invalid input for field/attribute patch. The body must be a JSON patch: a list of {op, path, value}.';

/** A route's request body, checked. */
function bodyOf(route: MagnumRoute, body: unknown): unknown {
  if (!route.body) return undefined;
  if (route.body === 'json-patch') {
    const ops = PatchBody.safeParse(body);
    if (!Array.isArray(body) || !ops.success) throw badRequest(NOT_A_PATCH);
    return ops.data;
  }
  return magnumBody(route.body.schema, body, { resource: route.body.resource, readOnly: route.body.readOnly });
}

/** What an operation's precheck gets from a request on the cluster. */
export function precheckInput<B>(ctx: ApiContext, req: Request, res: Response, cluster: MagnumClusterRow, body: B, extra: Partial<MagnumPrecheckInput<B>> = {}): MagnumPrecheckInput<B> {
  const caller = callerOf(res);
  return {
    db: ctx.db, cfg: ctx.cfg, caller, cluster, body, minor: versionOf(res).minor, rollback: false,
    findNodegroup: (ident) => findNodegroup(ctx, cluster, ident),
    findTemplate: (ident) => findTemplate(ctx, caller, ident),
    cloud: (vimId) => lookupsFor(ctx, tokenOf(req), vimId),
    ...extra,
  };
}

export function magnumOperationsRouter(ctx: ApiContext): Router {
  const r = Router();
  for (const [operation, op] of Object.entries(MAGNUM_CLUSTER_OPERATIONS) as [MagnumOperation, MagnumOperationModule][]) {
    const { route, precheck } = op;
    if (!route || !precheck) continue;
    r[route.method](route.path, authorize(route.policy, 'write'), async (req, res) => {
      if (route.since) {
        const message = route.since.badRequestAt?.[versionOf(res).minor];
        if (message) throw badRequest(message);
        requireVersion(res, route.since.minor, route.since.what);
      }
      const cluster = await findCluster(ctx, callerOf(res), String(req.params.cluster));
      const nodegroup = req.params.nodegroup === undefined ? undefined : await findNodegroup(ctx, cluster, String(req.params.nodegroup));
      const body = bodyOf(route, req.body);
      const rollback = route.rollback ? magnumBoolQuery(req.query.rollback, 'rollback') : false;
      const plan = await precheck(precheckInput(ctx, req, res, cluster, body, { nodegroup, rollback }));
      const { shows, ...begin } = plan;
      await startMagnumOperation(ctx, cluster.id, { ...begin, operation });
      if (route.supersedes && cluster.status.endsWith('_IN_PROGRESS')) await stopOperation(ctx, cluster.operationId);
      if (route.answer === 'none') return void res.status(204).end();
      if (route.answer === 'uuid') return void res.status(202).json({ uuid: cluster.id });
      const group = (await nodegroupsOf(ctx.db, cluster.id)).find((g) => g.uuid === shows);
      if (!group) throw new Error(`${operation} did not name the nodegroup its answer shows`);
      res.status(202).json(nodegroupDict(await clusterFacts(ctx.db, cluster), group, ctx.cfg.apiBaseUrl, versionOf(res)));
    });
  }
  return r;
}
