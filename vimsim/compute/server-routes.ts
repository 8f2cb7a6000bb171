/** /servers: create, list (summary and detail, with novaclient's filters), show, update, delete. */
import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response, Router } from 'express';
import { badRequest, forbidden } from '../http/errors';
import { ctxOf } from '../http/service';
import { hostUrl } from '../http/urls';
import { parseBody, queryInt, queryString, param } from '../http/validate';
import type { ServerRecord } from '../store/records';
import { isoSeconds } from '../util/time';
import { visibleServer } from './lookup';
import { asNovaError, createServer, type ComputeDeps } from './server-create';
import { ServerCreate, ServerUpdate } from './schemas';
import { atLeast } from './versions';
import { addressesOf, links, serverDetail, serverSummary } from './views';

/** A quantified group holding a quantifier, e.g. (a+)+: catastrophic backtracking on a crafted name. */
const NESTED_QUANTIFIER = /\([^)]*[+*}][^)]*\)\s*[+*{]/;

/**
 * Nova's name filter is a regular expression (re.search); one that does not
 * compile, or could backtrack without end, matches literally.
 */
function nameMatcher(pattern: string): (name: string) => boolean {
  try {
    if (pattern.length > 255 || NESTED_QUANTIFIER.test(pattern)) throw new SyntaxError('not used as a regular expression');
    const re = new RegExp(pattern);
    return (name) => re.test(name);
  } catch {
    return (name) => name.includes(pattern);
  }
}

function filtered(deps: ComputeDeps, req: Request, res: Response): ServerRecord[] {
  const ctx = ctxOf(res);
  const q = req.query;
  const allTenants = ['1', 'true', 'True'].includes(queryString(q, 'all_tenants') ?? '');
  if (allTenants && !ctx.isAdmin) throw forbidden('Policy does not allow os_compute_api:servers:index:get_all_tenants to be performed.');
  const project = queryString(q, 'project_id') ?? queryString(q, 'tenant_id');
  let servers = deps.store.list('servers').filter((s) => (allTenants || (project && ctx.isAdmin) ? true : s.project_id === ctx.projectId));
  if (project && ctx.isAdmin) servers = servers.filter((s) => s.project_id === project);
  const name = queryString(q, 'name');
  if (name !== undefined) servers = servers.filter((s) => nameMatcher(name)(s.name));
  const status = queryString(q, 'status');
  if (status) servers = servers.filter((s) => s.status === status.toUpperCase());
  const image = queryString(q, 'image');
  if (image) servers = servers.filter((s) => s.image_id === image);
  const flavor = queryString(q, 'flavor');
  if (flavor) servers = servers.filter((s) => s.flavor_id === flavor);
  const ip = queryString(q, 'ip');
  if (ip) servers = servers.filter((s) => Object.values(addressesOf(s, deps.store)).flat().some((a) => a.addr.includes(ip)));
  const since = queryString(q, 'changes-since');
  if (since) {
    const t = Date.parse(since);
    if (!Number.isFinite(t)) throw badRequest(`Invalid input for query parameters changes-since. Value: ${since.slice(0, 40)}.`);
    servers = servers.filter((s) => Date.parse(s.updated) >= t);
  }
  const tags = queryString(q, 'tags');
  if (tags) servers = servers.filter((s) => tags.split(',').every((t) => s.tags.includes(t)));
  return servers.sort((a, b) => b.created.localeCompare(a.created)); // Nova: newest first
}

function page(servers: ServerRecord[], req: Request, detail: boolean): { items: ServerRecord[]; next?: string } {
  const marker = queryString(req.query, 'marker');
  let items = servers;
  if (marker) {
    const at = items.findIndex((s) => s.id === marker);
    if (at < 0) throw badRequest(`marker [${marker.slice(0, 64)}] not found`);
    items = items.slice(at + 1);
  }
  const limit = queryInt(req.query, 'limit', 1000);
  if (limit === undefined || items.length <= limit) return { items };
  items = items.slice(0, limit);
  const params = new URLSearchParams({ limit: String(limit), marker: items[items.length - 1].id });
  return { items, next: `${hostUrl(req)}/compute/v2.1/servers${detail ? '/detail' : ''}?${params}` };
}

export function serverRoutes(router: Router, deps: ComputeDeps, track: (op: string) => RequestHandler): void {
  const { store } = deps;

  router.post('/v2.1/servers', track('server.create'), (req, res) => {
    const ctx = ctxOf(res);
    const parsed = parseBody(ServerCreate, req.body);
    const body = parsed.server;
    const hints = parsed['os:scheduler_hints'] ?? parsed['OS-SCH-HNT:scheduler_hints'] ?? {};
    const count = Math.max(body.min_count ?? 1, body.max_count ?? 1);
    if (count > 10) throw forbidden(`Quota exceeded for instances: Requested ${count}, but already used 0 of 10 instances`);
    let first: ServerRecord | undefined;
    try {
      store.tx(() => {
        for (let i = 1; i <= count; i++) {
          const server = createServer(deps, ctx, count > 1 ? { ...body, name: `${body.name}-${i}` } : body, atLeast(res, 37), hints);
          first ??= server;
        }
      });
    } catch (err) {
      throw asNovaError(err);
    }
    const s = first!;
    res.status(202).location(links(req, 'servers', s.id)[0].href).json({
      server: {
        id: s.id,
        links: links(req, 'servers', s.id),
        'OS-DCF:diskConfig': body['OS-DCF:diskConfig'] ?? 'MANUAL',
        security_groups: s.security_groups.map((name) => ({ name })),
        adminPass: body.adminPass ?? randomBytes(9).toString('base64url'),
      },
    });
  });

  router.get('/v2.1/servers', track('server.list'), (req, res) => {
    const { items, next } = page(filtered(deps, req, res), req, false);
    res.json({ servers: items.map((s) => serverSummary(s, req)), ...(next ? { servers_links: [{ rel: 'next', href: next }] } : {}) });
  });

  router.get('/v2.1/servers/detail', track('server.list_detail'), (req, res) => {
    const ctx = ctxOf(res);
    const { items, next } = page(filtered(deps, req, res), req, true);
    res.json({ servers: items.map((s) => serverDetail(s, store, ctx, req, res)), ...(next ? { servers_links: [{ rel: 'next', href: next }] } : {}) });
  });

  router.get('/v2.1/servers/:id', track('server.show'), (req, res) => {
    const ctx = ctxOf(res);
    res.json({ server: serverDetail(visibleServer(store, ctx, param(req, 'id')), store, ctx, req, res) });
  });

  router.put('/v2.1/servers/:id', track('server.update'), (req, res) => {
    const ctx = ctxOf(res);
    const s = visibleServer(store, ctx, param(req, 'id'));
    const body = parseBody(ServerUpdate, req.body).server;
    const updated = store.put('servers', {
      ...s,
      name: body.name ?? s.name,
      access_ipv4: body.accessIPv4 ?? s.access_ipv4,
      access_ipv6: body.accessIPv6 ?? s.access_ipv6,
      description: body.description !== undefined ? body.description : s.description,
      updated: isoSeconds(),
    });
    res.json({ server: serverDetail(updated, store, ctx, req, res) });
  });

  router.delete('/v2.1/servers/:id', track('server.delete'), (req, res) => {
    const s = visibleServer(store, ctxOf(res), param(req, 'id'));
    if (s.task_state !== 'deleting') {
      const pending = deps.transitions.pending('delete', deps.faults.take('server', 'delete', s.name), { message: 'Failed to delete the instance.', code: 500 });
      store.put('servers', { ...s, task_state: 'deleting', updated: isoSeconds(), pending });
    }
    res.status(204).end();
  });
}
