/**
 * /v1/clusters/{id}/nodegroups (1.9; magnum/api/controllers/v1/nodegroup.py):
 * list (?role=) and show (int id, uuid or name). Create, PATCH and delete
 * are operations: ops/magnum/nodegroup-*, served by ./operations.ts.
 */
import { Router, type Response } from 'express';
import type { MagnumClusterRow, NodegroupRow } from '../../../store/repos/magnum/clusters';
import { clusterFacts } from '../../../ops/magnum/shared/cluster-facts';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { callerOf } from '../caller';
import { paginate } from '../collection';
import { findCluster, findNodegroup } from '../lookups';
import { requireVersion, versionOf } from '../microversion';
import { nodegroupDict } from '../views/cluster';

export function nodegroupsRouter(ctx: ApiContext): Router {
  const { db } = ctx;
  const r = Router();
  const base = ctx.cfg.apiBaseUrl;
  const read = authorize('nodegroups', 'read');
  const cluster = (res: Response, ident: string) => { requireVersion(res, 9, 'nodegroup'); return findCluster(ctx, callerOf(res), ident); };
  const view = async (res: Response, c: MagnumClusterRow, g: NodegroupRow, detail = true) => nodegroupDict(await clusterFacts(db, c), g, base, versionOf(res), detail);

  r.get('/clusters/:cluster/nodegroups', read, async (req, res) => {
    const c = await cluster(res, String(req.params.cluster));
    const role = typeof req.query.role === 'string' ? req.query.role : undefined;
    const facts = await clusterFacts(db, c);
    const groups = facts.nodegroups.filter((g) => !role || g.role === role);
    const page = paginate(groups, req.query, {
      what: 'Nodegroup', url: `${base}/v1/clusters/${c.id}/nodegroups`, uuidOf: (g) => g.uuid,
      sortable: { id: (g) => g.id, uuid: (g) => g.uuid, name: (g) => g.name, role: (g) => g.role, node_count: (g) => g.nodeCount, created_at: (g) => g.createdAt },
    });
    res.json({ nodegroups: page.items.map((g) => nodegroupDict(facts, g, base, versionOf(res), false)), ...(page.next ? { next: page.next } : {}) });
  });
  r.get('/clusters/:cluster/nodegroups/:ng', read, async (req, res) => {
    const c = await cluster(res, String(req.params.cluster));
    res.json(await view(res, c, await findNodegroup(ctx, c, String(req.params.ng))));
  });

  return r;
}
