/**
 * Everything under /stacks/{name}/{id}/...: resources (with nested_depth),
 * mark-unhealthy, events, template/files/environment/outputs, actions.
 */
import type { Request, Response } from 'express';
import type { ResourceRecord, SimState, StackRecord } from '../state/model';
import type { StateStore } from '../state/store';
import { findResource, isDeleted } from '../state/stacks';
import { baseUrlOf } from '../util/http';
import { heatErrors } from './errors';
import { ActionBody, MarkUnhealthyBody, parseBody } from './requests';
import type { HeatDeps } from './routes';
import { eventView, outputView, resourceDetail, resourceView } from './views';

export function stackResourceRoutes(deps: HeatDeps, req: Request, res: Response, stack: StackRecord, rest: string[]): void {
  const { store, engine, stats } = deps;
  const state = store.data;
  const base = baseUrlOf(req);
  const route = `${req.method} ${rest[0]}${rest.length > 1 ? '/:x' : ''}${rest.length > 2 ? `/${rest[2]}` : ''}${rest.length > 3 ? '/…' : ''}`;

  switch (route) {
    case 'GET resources': {
      stats.track('resource.list', res);
      const depth = Number(req.query.nested_depth ?? 0) || 0;
      const detail = req.query.with_detail === 'true' || req.query.with_detail === 'True';
      const listed = resourcesToDepth(state, stack, depth)
        .filter(([, r]) => matchesFilter(req.query.type, r.type) && matchesFilter(req.query.name, r.name))
        .filter(([, r]) => matchesFilter(req.query.status, r.status) || matchesFilter(req.query.status, `${r.action}_${r.status}`));
      res.json({
        resources: listed.map(([s, r]) => (detail ? resourceDetail(base, state, s, r) : resourceView(base, state, s, r))),
      });
      return;
    }
    case 'GET resources/:x': {
      stats.track('resource.get', res);
      res.json({ resource: resourceDetail(base, state, stack, resourceOf(stack, rest[1])) });
      return;
    }
    case 'PATCH resources/:x': {
      stats.track('resource.mark_unhealthy', res);
      const body = parseBody(MarkUnhealthyBody, req.body);
      engine.markUnhealthy(stack, rest[1], body.mark_unhealthy, body.resource_status_reason);
      res.status(200).end();
      return;
    }
    case 'GET resources/:x/events': {
      stats.track('event.list', res);
      resourceOf(stack, rest[1]);
      res.json({ events: eventsOf(store, stack, req, base, rest[1]) });
      return;
    }
    case 'GET events': {
      stats.track('event.list', res);
      res.json({ events: eventsOf(store, stack, req, base, typeof req.query.resource_name === 'string' ? req.query.resource_name : undefined) });
      return;
    }
    case 'GET template':
      stats.track('stack.template', res);
      res.json(stack.template);
      return;
    case 'GET files':
      stats.track('stack.files', res);
      res.json(stack.files);
      return;
    case 'GET environment':
      stats.track('stack.environment', res);
      res.json({ ...stack.environment, encrypted_param_names: [], event_sinks: [] });
      return;
    case 'GET outputs':
      stats.track('stack.outputs', res);
      res.json({ outputs: stack.outputs.map((o) => ({ output_key: o.key, description: o.description })) });
      return;
    case 'GET outputs/:x': {
      stats.track('stack.outputs', res);
      const output = stack.outputs.find((o) => o.key === rest[1]);
      if (!output) throw heatErrors.notFound(`Specified output key ${rest[1]} not found.`);
      res.json({ output: outputView(output) });
      return;
    }
    case 'POST actions': {
      stats.track('stack.action', res);
      const [action] = Object.keys(parseBody(ActionBody, req.body));
      if (action !== 'cancel_update' && action !== 'cancel_without_rollback') {
        throw heatErrors.badRequest(`Action ${action} is not supported by the simulator (only cancel_update, cancel_without_rollback).`);
      }
      engine.cancel(stack);
      res.status(200).end();
      return;
    }
    default:
      throw heatErrors.notFound(`The resource could not be found: ${req.method} ${rest.join('/')}`);
  }
}

function resourceOf(stack: StackRecord, name: string): ResourceRecord {
  const res = isDeleted(stack) ? undefined : findResource(stack, name);
  if (!res) throw heatErrors.resourceNotFound(name, stack.name);
  return res;
}

function matchesFilter(filter: unknown, value: string): boolean {
  if (filter === undefined) return true;
  const wanted = Array.isArray(filter) ? filter.map(String) : [String(filter)];
  return wanted.includes(value);
}

/** The stack's resources, then those of its nested stacks level by level, down to `depth`. */
function resourcesToDepth(state: SimState, stack: StackRecord, depth: number): [StackRecord, ResourceRecord][] {
  const out: [StackRecord, ResourceRecord][] = [];
  let level = [stack];
  for (let d = 0; d <= depth && level.length > 0; d++) {
    const next: StackRecord[] = [];
    for (const s of level) {
      for (const r of s.resources) {
        out.push([s, r]);
        const child = r.nestedStackId ? state.stacks[r.nestedStackId] : undefined;
        if (child && !isDeleted(child)) next.push(child);
      }
    }
    level = next;
  }
  return out;
}

function eventsOf(store: StateStore, stack: StackRecord, req: Request, base: string, resourceName: string | undefined) {
  const depth = Number(req.query.nested_depth ?? 0) || 0;
  const state = store.data;
  const stacks = resourcesToDepth(state, stack, Math.max(0, depth - 1))
    .map(([, r]) => (r.nestedStackId ? state.stacks[r.nestedStackId] : undefined))
    .filter((s): s is StackRecord => s !== undefined);
  const sources = depth > 0 ? [stack, ...stacks] : [stack];
  const byId = new Map(sources.map((s) => [s.id, s]));
  let events = store.eventsOf([...byId.keys()])
    .map(({ stackId, event }) => ({ stack: byId.get(stackId)!, event }))
    .filter(({ stack: s, event }) => resourceName === undefined || (s === stack && event.resourceName === resourceName));
  // Stable sort by time keeps the recorded order within the same second.
  events = events.map((e, i) => ({ ...e, i })).sort((a, b) => a.event.time.localeCompare(b.event.time) || a.i - b.i);
  if (req.query.sort_dir === 'desc') events.reverse();
  if (typeof req.query.marker === 'string') {
    const at = events.findIndex((e) => e.event.id === req.query.marker);
    if (at >= 0) events = events.slice(at + 1);
  }
  const limit = Number(req.query.limit);
  if (Number.isInteger(limit) && limit > 0) events = events.slice(0, limit);
  return events.map(({ stack: s, event }) => eventView(base, s, event));
}
