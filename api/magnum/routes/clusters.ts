/**
 * /v1/clusters (magnum/api/controllers/v1/cluster.py): create (202 {uuid},
 * the row written at once), list (summary fields), detail, show, PATCH
 * (node_count of default-worker, health fields; anything else 400), delete
 * (any status; a running operation is superseded). Refusals come back at
 * once, never as a 202 that only logs them (Magnum's gap).
 */
import { Router, type Request, type Response } from 'express';
import { updateCluster as updateEngineCluster } from '../../../common/db/repos/clusters';
import { createMagnumCluster, magnumClusters, nodegroupsOf, Refused, type MagnumClusterRow } from '../../../common/db/repos/magnum/clusters';
import { quotaOf } from '../../../common/db/repos/magnum/quotas';
import { defaultVimFor, type VimRow } from '../../../common/db/repos/vims';
import { actingVimId } from '../../vim-access';
import { badRequest, conflict, HttpError } from '../../../common/http-error';
import { CLUSTER_READ_ONLY, ClusterInput, PatchBody } from '../../../model/magnum/cluster';
import { HEALTH_STATUSES, UPDATABLE } from '../../../model/magnum/status';
import { clusterFacts } from '../../../ops/magnum/shared/cluster-facts';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { magnumBody, magnumBoolQuery } from '../body';
import { callerOf, listScope, tokenOf } from '../caller';
import { planCluster, ZERO_NODES } from '../cluster-create';
import { paginate } from '../collection';
import { applyPatch } from '../json-patch';
import { findCluster } from '../lookups';
import { requireVersion, versionOf } from '../microversion';
import { startMagnumOperation, startMagnumWorkflow, stopOperation } from '../operations';
import { clusterDict } from '../views/cluster';

/** Magnum's NotSupported, as a conflict with the cluster's state: 'Updating a cluster when status is "X" is not supported.' */
export const statusRefusal = (verb: string, status: string) => conflict(`${verb} a cluster when status is "${status}" is not supported.`);

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
    const input = magnumBody(ClusterInput, req.body, { resource: 'cluster', readOnly: CLUSTER_READ_ONLY });
    const vim = await defaultVimFor(db, { projectId: caller.projectId, all: false });
    if (!vim) throw new HttpError(503, 'No VIM is configured for this deployment.');
    const token = tokenOf(req);
    const acting = (v: VimRow) => actingVimId(ctx, { caller, token }, v, caller.projectId);
    const { row, nodegroups } = await planCluster(ctx, { caller, token, input, v: versionOf(res), vim, acting });
    const quota = (await quotaOf(db, caller.projectId, 'Cluster'))?.hardLimit ?? ctx.cfg.magnum.maxClustersPerProject;
    try {
      await createMagnumCluster(db, row, nodegroups, { clusters: quota, nodes: ctx.cfg.quotas.clusterNodes });
    } catch (e) {
      if (e instanceof Refused) throw new HttpError(e.status, e.message);
      throw e;
    }
    const made = (await magnumClusters(db, { projectId: caller.projectId, all: false })).find((c) => c.id === row.id)!;
    await startMagnumWorkflow(ctx, made);
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
    if (changed.includes('node_count')) await startNodeCountUpdate(cluster, after.node_count, v.minor, rollback);
    res.status(202).json({ uuid: cluster.id });
  });

  /** PATCH node_count: the default-worker nodegroup resized (Magnum: only from a *_COMPLETE status). */
  const startNodeCountUpdate = async (cluster: MagnumClusterRow, n: unknown, minor: number, rollback: boolean) => {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw badRequest(`Invalid input for field/attribute node_count. Value: '${String(n)}'. Expected a non-negative integer.`);
    if (n === 0 && minor < 10) throw badRequest(ZERO_NODES);
    const worker = (await nodegroupsOf(db, cluster.id)).find((g) => g.isDefault && g.role !== 'master');
    if (!worker) throw conflict(`Cluster ${cluster.id} has no default worker nodegroup.`);
    if (n < worker.minNodeCount || (worker.maxNodeCount !== null && n > worker.maxNodeCount)) {
      throw badRequest(`Resizing ${worker.name} outside the allowed range: min_node_count = ${worker.minNodeCount}, max_node_count = ${worker.maxNodeCount ?? 'None'}`);
    }
    await startMagnumOperation(ctx, cluster.id, {
      operation: 'cluster-update', status: 'UPDATE_IN_PROGRESS', opParams: { nodegroupId: worker.id, nodeCount: n, rollback },
      check: (c) => { if (!UPDATABLE.includes(c.status)) throw new Refused(409, `Updating a cluster when status is "${c.status}" is not supported.`); },
      nodegroups: async () => ({ ids: [worker.id], status: 'UPDATE_IN_PROGRESS' }),
    });
  };

  r.delete('/clusters/:ident', write, async (req, res) => {
    const cluster = await find(res, String(req.params.ident));
    const previous = cluster.operationId;
    const running = cluster.status.endsWith('_IN_PROGRESS');
    await startMagnumOperation(ctx, cluster.id, {
      operation: 'cluster-delete', status: 'DELETE_IN_PROGRESS',
      check: () => undefined, // Magnum deletes in any status
      nodegroups: async (_q, _c, groups) => ({ ids: groups.map((g) => g.id), status: 'DELETE_IN_PROGRESS' }),
    });
    if (running) await stopOperation(ctx, previous);
    res.status(204).end();
  });

  return r;
}
