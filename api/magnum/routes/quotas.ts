/**
 * /v1/quotas (1.6; magnum/api/controllers/v1/quota.py): a project's cluster
 * limit. Create, update and delete are for admins (quota:* policy); the
 * project must exist in Keystone (404). A project without a quota row has
 * [quotas]max_clusters_per_project (MAGNUM_MAX_CLUSTERS_PER_PROJECT, 20).
 */
import { Router, type Request, type Response } from 'express';
import { createQuota, deleteQuota, listQuotas, quotaOf, updateQuota, type QuotaRow } from '../../../store/repos/magnum/quotas';
import { badRequest, conflict, forbidden, notFound } from '../../../common/http-error';
import { QuotaInput } from '../../../model/magnum/cluster';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { magnumBody } from '../body';
import { callerOf, wantsAllTenants } from '../caller';
import { requireVersion } from '../microversion';
import { magnumTime } from '../views/common';

const view = (q: QuotaRow) => ({ id: q.id, project_id: q.projectId, resource: q.resource, hard_limit: q.hardLimit, created_at: magnumTime(q.createdAt), updated_at: magnumTime(q.updatedAt) });

export function quotasRouter(ctx: ApiContext): Router {
  const { db } = ctx;
  const r = Router();
  const write = authorize('quotas', 'write');
  const read = authorize('quotas', 'read');
  const v16 = (_req: Request, res: Response, next: () => void) => { requireVersion(res, 6, 'quota'); next(); };
  const requireProject = async (projectId: string) => {
    if (!(await ctx.tokens.projectExists(projectId))) throw notFound(`Project ${projectId} could not be found.`);
  };

  r.post('/quotas', v16, write, async (req, res) => {
    const body = magnumBody(QuotaInput, req.body, { resource: 'quota', readOnly: ['id', 'created_at', 'updated_at'] });
    await requireProject(body.project_id);
    const made = await createQuota(db, body.project_id, body.resource, body.hard_limit ?? 1);
    if (!made) throw conflict(`Quota for project ${body.project_id} already exists for resource ${body.resource}.`);
    res.status(201).json(view(made));
  });

  r.get('/quotas', v16, read, async (req, res) => {
    const c = callerOf(res);
    if (!c.isAdmin) throw forbidden("Policy doesn't allow quota:get_all to be performed.");
    const limit = Math.min(Number(req.query.limit ?? 1000) || 1000, 1000);
    if (limit <= 0) throw badRequest('Limit must be positive');
    const marker = req.query.marker === undefined ? 0 : Number(req.query.marker);
    if (!Number.isInteger(marker)) throw badRequest(`Invalid input for field/attribute marker. Value: '${String(req.query.marker)}'. Expected an integer id.`);
    const rows = await listQuotas(db, wantsAllTenants(req) ? undefined : c.projectId, marker, limit);
    const next = rows.length === limit ? `${ctx.cfg.apiBaseUrl}/v1/quotas?limit=${limit}&marker=${rows[rows.length - 1].id}` : undefined;
    res.json({ quotas: rows.map(view), ...(next ? { next } : {}) });
  });

  r.get('/quotas/:project/:resource', v16, read, async (req, res) => {
    const c = callerOf(res);
    const project = String(req.params.project);
    if (!c.isAdmin && project !== c.projectId) throw forbidden("Policy doesn't allow quota:get to be performed.");
    const q = await quotaOf(db, project, String(req.params.resource));
    res.json(q ? view(q) : { project_id: project, resource: String(req.params.resource), hard_limit: ctx.cfg.magnum.maxClustersPerProject });
  });

  r.patch('/quotas/:project/:resource', v16, write, async (req, res) => {
    const project = String(req.params.project);
    const resource = String(req.params.resource);
    const body = magnumBody(QuotaInput.partial(), req.body, { resource: 'quota', readOnly: ['id', 'created_at', 'updated_at'] });
    const q = await updateQuota(db, project, resource, body.hard_limit ?? 1);
    if (!q) throw notFound(`Quota for project ${project} for resource ${resource} could not be found.`);
    res.status(202).json(view(q));
  });

  r.delete('/quotas/:project/:resource', v16, write, async (req, res) => {
    const project = String(req.params.project);
    const resource = String(req.params.resource);
    if (!(await deleteQuota(db, project, resource))) throw notFound(`Quota for project ${project} for resource ${resource} could not be found.`);
    res.status(204).end();
  });

  return r;
}
