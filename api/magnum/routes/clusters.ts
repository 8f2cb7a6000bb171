/**
 * /v1/clusters (magnum/api/controllers/v1/cluster.py): create (202 {uuid},
 * the row written at once), list (summary fields), detail, show, PATCH
 * (node_count of default-worker: ops/magnum/cluster-update; health fields;
 * anything else 400). Delete and the actions are the operations' own routes
 * (./operations.ts). Refusals come back at once, never as a 202 that only
 * logs them (Magnum's gap).
 */
import { Router, type Request, type Response } from 'express';
import { updateCluster as updateEngineCluster } from '../../../store/repos/clusters';
import { createMagnumCluster, magnumClusters, Refused } from '../../../store/repos/magnum/clusters';
import { quotaOf } from '../../../store/repos/magnum/quotas';
import { defaultVimFor, type VimRow } from '../../../store/repos/vims';
import { actingVimId } from '../../vim-access';
import { badRequest, HttpError } from '../../../common/http-error';
import { PatchBody } from '../../../model/magnum/cluster';
import { planCluster } from '../../../ops/magnum/cluster-create/precheck';
import { CLUSTER_READ_ONLY, ClusterInput } from '../../../ops/magnum/cluster-create/request';
import { HEALTH_STATUSES } from '../../../model/magnum/status';
import { clusterFacts } from '../../../ops/magnum/shared/cluster-facts';
import { clusterUpdateOp } from '../../../ops/magnum/cluster-update';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { magnumBody, magnumBoolQuery } from '../body';
import { callerOf, listScope, tokenOf } from '../caller';
import { paginate } from '../collection';
import { applyPatch } from '../../../model/magnum/json-patch';
import { findCluster, findTemplate, lookupsFor } from '../lookups';
import { requireVersion, versionOf } from '../microversion';
import { startMagnumOperation, startMagnumWorkflow } from '../operations';
import { precheckInput } from './operations';
import { clusterDict } from '../views/cluster';

export function clustersRouter(ctx: ApiContext): Router {
  const { db } = ctx;
  const r = Router();
  const base = ctx.cfg.apiBaseUrl;
  const read = authorize('clusters', 'read');
  const write = authorize('clusters', 'write');
  const find = (res: Response, ident: string) => findCluster(ctx, callerOf(res), ident);

  const list = (detail: boolean) => async (req: Request, res: Response) => {
    const rows = await magnumClusters(db, listScope(req, res));
    const page = paginate(rows, req.query, {
      what: 'Cluster', url: `${base}/v1/clusters${detail ? '/detail' : ''}`, uuidOf: (c) => c.id,
      sortable: { id: (c) => c.createdAt, uuid: (c) => c.id, name: (c) => c.name, status: (c) => c.status, created_at: (c) => c.createdAt, updated_at: (c) => c.updatedAt, cluster_template_id: (c) => c.templateId },
    });
    const v = versionOf(res);
    const items = await Promise.all(page.items.map(async (c) => clusterDict(await clusterFacts(db, c), base, v, detail)));
    res.json({ clusters: items, ...(page.next ? { next: page.next } : {}) });
  };
  r.get('/clusters', read, list(false));
  r.get('/clusters/detail', read, list(true));
  r.get('/clusters/:ident', read, async (req, res) => {
    res.json(clusterDict(await clusterFacts(db, await find(res, String(req.params.ident))), base, versionOf(res)));
  });

  r.post('/clusters', write, async (req, res) => {
    const caller = callerOf(res);
    const body = magnumBody(ClusterInput, req.body, { resource: 'cluster', readOnly: CLUSTER_READ_ONLY });
    const vim = await defaultVimFor(db, { projectId: caller.projectId, all: false });
    if (!vim) throw new HttpError(503, 'No VIM is configured for this deployment.');
    const token = tokenOf(req);
    const { row, nodegroups } = await planCluster({
      db, cfg: ctx.cfg, caller, body, minor: versionOf(res).minor, vim,
      findTemplate: (ident) => findTemplate(ctx, caller, ident),
      cloud: (vimId) => lookupsFor(ctx, token, vimId),
      acting: (v: VimRow) => actingVimId(ctx, { caller, token }, v, caller.projectId),
    });
    const quota = (await quotaOf(db, caller.projectId, 'Cluster'))?.hardLimit ?? ctx.cfg.magnum.maxClustersPerProject;
    let made;
    try {
      made = await createMagnumCluster(db, row, nodegroups, { clusters: quota, nodes: ctx.cfg.quotas.clusterNodes });
    } catch (e) {
      if (e instanceof Refused) throw new HttpError(e.status, e.message);
      throw e;
    }
    await startMagnumWorkflow(ctx, made.cluster);
    res.status(202).json({ uuid: row.id });
  });

  r.patch('/clusters/:ident', write, async (req, res) => {
    const cluster = await find(res, String(req.params.ident));
    const v = versionOf(res);
    const rollback = magnumBoolQuery(req.query.rollback, 'rollback');
    if (rollback) requireVersion(res, 3, 'rollback');
    const ops = PatchBody.safeParse(req.body);
    if (!Array.isArray(req.body) || !ops.success) throw badRequest('Invalid input for field/attribute patch. The body must be a JSON patch: a list of {op, path, value}.');
    const facts = await clusterFacts(db, cluster);
    const before = clusterDict(facts, base, v);
    const after = applyPatch(before, ops.data, { dicts: ['labels', 'health_status_reason'] });
    const changed = Object.keys(after).filter((k) => JSON.stringify(after[k]) !== JSON.stringify(before[k]));
    const refused = changed.filter((k) => !['node_count', 'health_status', 'health_status_reason'].includes(k));
    if (refused.length) throw badRequest(`cannot change cluster property(ies) ${refused.join(', ')}.`);
    if (changed.includes('health_status') || changed.includes('health_status_reason')) {
      const hs = after.health_status;
      if (hs !== null && !(HEALTH_STATUSES as readonly unknown[]).includes(hs)) throw badRequest(`Invalid input for field/attribute health_status. Value: '${String(hs)}'. Value should be one of: ${HEALTH_STATUSES.join(', ')}.`);
      const reason = after.health_status_reason;
      if (reason !== null && (typeof reason !== 'object' || Array.isArray(reason))) throw badRequest('Invalid input for field/attribute health_status_reason: a dict of strings is expected.');
      await updateEngineCluster(db, cluster.id, {
        healthStatus: (hs ?? null) as (typeof HEALTH_STATUSES)[number] | null,
        healthStatusReason: reason ? Object.fromEntries(Object.entries(reason as object).map(([k, x]) => [k, String(x)])) : null,
      });
    }
    if (changed.includes('node_count')) {
      const { shows: _none, ...plan } = await clusterUpdateOp.precheck!(precheckInput(ctx, req, res, cluster, { nodeCount: after.node_count }, { rollback }));
      await startMagnumOperation(ctx, cluster.id, { ...plan, operation: 'cluster-update' });
    }
    res.status(202).json({ uuid: cluster.id });
  });

  return r;
}
