/**
 * Heat v1 REST under /heat/v1/{tenant_id}. Paths naming a stack only by name
 * or id are answered with a 302 to the canonical /stacks/{name}/{id}/...
 * (for every method, as Heat's stack lookup does).
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { StackEngine } from '../engine/stack-engine';
import type { TokenService } from '../keystone/tokens';
import type { Stats } from '../sim/stats';
import type { StackRecord } from '../state/model';
import { isDeleted, lookupStack } from '../state/stacks';
import type { StateStore } from '../state/store';
import { baseUrlOf } from '../util/http';
import { requireToken } from './auth';
import { HeatError, heatErrors } from './errors';
import { CreateStackBody, parseBody, UpdateStackBody, ValidateBody } from './requests';
import { stackResourceRoutes } from './stack-subroutes';
import { stackDetail, stackHref, stackSummary } from './views';

/** Sub-paths that may follow a bare stack name and trigger a lookup redirect. */
const LOOKUP_SUBPATHS = new Set(['resources', 'events', 'template', 'files', 'environment', 'outputs', 'actions']);

export interface HeatDeps {
  store: StateStore;
  engine: StackEngine;
  tokens: TokenService;
  stats: Stats;
}

export function heatRouter(deps: HeatDeps): Router {
  const { store, engine, stats } = deps;
  const router = Router({ mergeParams: true });
  const versions = (req: Request, res: Response) => {
    res.json({ versions: [{ id: 'v1.0', status: 'CURRENT', links: [{ rel: 'self', href: `${baseUrlOf(req)}/heat/v1/` }] }] });
  };
  router.get(['/', ''], versions);

  const project = Router({ mergeParams: true });
  router.use('/v1/:tenant', requireToken(deps.tokens, stats), project);
  const tenantOf = (req: Request) => String(req.params.tenant);

  project.get('/stacks', (req, res) => {
    stats.track('stack.list', res);
    res.json({ stacks: listStacks(store, tenantOf(req), req.query).map((s) => stackSummary(baseUrlOf(req), s)) });
  });

  project.post('/stacks', (req, res) => {
    stats.track('stack.create', res);
    const body = parseBody(CreateStackBody, req.body);
    if (body.template === undefined) throw heatErrors.badRequest('No template specified');
    const stack = engine.create(tenantOf(req), { ...body, template: body.template });
    res.status(201).json({ stack: { id: stack.id, links: [{ href: stackHref(baseUrlOf(req), stack), rel: 'self' }] } });
  });

  project.post('/validate', (req, res) => {
    stats.track('template.validate', res);
    const body = parseBody(ValidateBody, req.body);
    if (body.template === undefined) throw heatErrors.badRequest('No template specified');
    res.json(engine.validate(tenantOf(req), { ...body, template: body.template }));
  });

  project.all('/stacks/*segments', (req, res) => {
    const segments = req.params.segments as unknown as string[];
    const tenant = tenantOf(req);
    if (segments.length === 1 || LOOKUP_SUBPATHS.has(segments[1])) {
      stats.track('stack.lookup', res);
      const stack = lookupStack(store.data, tenant, segments[0]);
      if (!stack) throw heatErrors.stackNotFound(segments[0]);
      const rest = segments.slice(1).map((s) => `/${encodeURIComponent(s)}`).join('');
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      res.redirect(302, `${stackHref(baseUrlOf(req), stack)}${rest}${query}`);
      return;
    }
    const [name, id, ...rest] = segments;
    const stack = store.data.stacks[id];
    if (!stack || stack.projectId !== tenant || stack.name !== name) throw heatErrors.stackNotFound(`${name}/${id}`);
    if (rest.length === 0) handleStack(deps, req, res, stack);
    else stackResourceRoutes(deps, req, res, stack, rest);
  });

  project.use((req) => {
    throw heatErrors.notFound(`The simulator does not implement ${req.method} ${req.path}`);
  });

  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof HeatError) res.status(err.code).json(err.toBody());
    else if (err instanceof SyntaxError) res.status(400).json(heatErrors.badRequest(`Malformed JSON body: ${err.message}`).toBody());
    else next(err);
  });
  return router;
}

function handleStack(deps: HeatDeps, req: Request, res: Response, stack: StackRecord): void {
  const { engine, stats } = deps;
  switch (req.method) {
    case 'GET':
      stats.track('stack.get', res);
      res.json({ stack: stackDetail(baseUrlOf(req), stack, req.query.resolve_outputs !== 'false') });
      return;
    case 'PATCH':
    case 'PUT':
      stats.track('stack.update', res);
      engine.update(stack, parseBody(UpdateStackBody, req.body), req.method === 'PATCH' ? 'patch' : 'put');
      res.status(202).end();
      return;
    case 'DELETE':
      stats.track('stack.delete', res);
      engine.delete(stack);
      res.status(204).end();
      return;
    default:
      throw heatErrors.methodNotAllowed();
  }
}

function listStacks(store: StateStore, projectId: string, query: Request['query']): StackRecord[] {
  const name = query.stack_name ?? query.name;
  const status = typeof query.status === 'string' ? query.status : undefined;
  const showDeleted = query.show_deleted === 'true' || query.show_deleted === 'True';
  const showNested = query.show_nested === 'true' || query.show_nested === 'True';
  return Object.values(store.data.stacks)
    .filter((s) => s.projectId === projectId)
    .filter((s) => showNested || !s.parentId)
    .filter((s) => showDeleted || !isDeleted(s))
    .filter((s) => name === undefined || (Array.isArray(name) ? name.includes(s.name) : s.name === name))
    .filter((s) => !status || status === s.status || status === `${s.action}_${s.status}`)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
