/**
 * /os-server-groups: create (policies before 2.64, policy + rules from it),
 * list, show, delete. Servers join a group through the scheduler hint
 * `group`, and the scheduler places them by its policy (scheduler.ts).
 */
import type { RequestHandler, Response, Router } from 'express';
import { z } from 'zod';
import { actingUserId } from '../auth/context';
import { badRequest, forbidden, notFound } from '../http/errors';
import { ctxOf } from '../http/service';
import { param, parseBody, queryString } from '../http/validate';
import type { ServerGroupRecord } from '../store/records';
import type { Store } from '../store/store';
import { newUuid } from '../util/ids';
import { atLeast } from './versions';

const POLICY = z.enum(['affinity', 'anti-affinity', 'soft-affinity', 'soft-anti-affinity']);

const GroupCreate = z.object({
  server_group: z
    .object({
      name: z.string().trim().min(1).max(255),
      policies: z.array(POLICY).length(1).optional(),
      policy: POLICY.optional(),
      rules: z.object({ max_server_per_host: z.union([z.number().int().positive(), z.string().regex(/^\d+$/).transform(Number)]).optional() }).strict().optional(),
    })
    .strict(),
});

export function groupView(g: ServerGroupRecord, res: Response) {
  const base = { id: g.id, name: g.name, members: g.members, project_id: g.project_id, user_id: g.user_id };
  return atLeast(res, 64) ? { ...base, policy: g.policy, rules: g.rules } : { ...base, policies: [g.policy], metadata: {} };
}

export function visibleGroup(store: Store, ctx: ReturnType<typeof ctxOf>, id: string): ServerGroupRecord {
  const g = store.get('server_groups', id);
  if (!g || (g.project_id !== ctx.projectId && !ctx.isAdmin)) throw notFound(`Server group ${id} could not be found.`);
  return g;
}

export function serverGroupRoutes(router: Router, store: Store, track: (op: string) => RequestHandler): void {
  router.post('/v2.1/os-server-groups', track('server_group.create'), (req, res) => {
    const ctx = ctxOf(res);
    const body = parseBody(GroupCreate, req.body).server_group;
    const v264 = atLeast(res, 64);
    if (v264 ? !body.policy || body.policies : !body.policies || body.policy || body.rules) {
      throw badRequest(`Invalid input for field/attribute server_group. ${v264 ? "'policy' is a required property" : "'policies' is a required property"}`);
    }
    const policy = (body.policy ?? body.policies![0])!;
    if (body.rules && policy !== 'anti-affinity') throw badRequest(`Only anti-affinity policy supports rules.`);
    const group = store.put('server_groups', {
      id: newUuid(), name: body.name, project_id: ctx.projectId, user_id: actingUserId(ctx), policy,
      rules: body.rules?.max_server_per_host ? { max_server_per_host: body.rules.max_server_per_host } : {}, members: [],
    });
    res.json({ server_group: groupView(group, res) });
  });

  router.get('/v2.1/os-server-groups', track('server_group.list'), (req, res) => {
    const ctx = ctxOf(res);
    const all = ['1', 'true', 'True'].includes(queryString(req.query, 'all_projects') ?? '');
    if (all && !ctx.isAdmin) throw forbidden('Policy does not allow os_compute_api:os-server-groups:index:all_projects to be performed.');
    const groups = store.list('server_groups').filter((g) => all || g.project_id === ctx.projectId);
    res.json({ server_groups: groups.map((g) => groupView(g, res)) });
  });

  router.get('/v2.1/os-server-groups/:id', track('server_group.show'), (req, res) => {
    res.json({ server_group: groupView(visibleGroup(store, ctxOf(res), param(req, 'id')), res) });
  });

  router.delete('/v2.1/os-server-groups/:id', track('server_group.delete'), (req, res) => {
    const group = visibleGroup(store, ctxOf(res), param(req, 'id'));
    store.remove('server_groups', group.id);
    res.status(204).end();
  });
}
