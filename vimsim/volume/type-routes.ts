/**
 * /v3/{project_id}/types: Cinder volume types (the seeded `__DEFAULT__` and
 * the ones admins make, e.g. Heat's OS::Cinder::VolumeType) with their
 * extra specs; `multiattach: "<is> True"` makes volumes of the type
 * multi-attachable. Nothing else in a spec changes behaviour.
 */
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import type { RequestContext } from '../auth/context';
import { badRequest, conflict, forbidden, notFound } from '../http/errors';
import { ctxOf } from '../http/service';
import { param, parseBody } from '../http/validate';
import type { VolumeTypeRecord } from '../store/records';
import { DEFAULT_VOLUME_TYPE } from '../store/seed';
import type { Store } from '../store/store';
import { newUuid } from '../util/ids';

const specs = z.record(z.string().min(1).max(255), z.string().max(255));
const TypeCreate = z.object({
  volume_type: z.looseObject({
    name: z.string().trim().min(1).max(255),
    description: z.string().max(255).nullable().optional(),
    'os-volume-type-access:is_public': z.union([z.boolean(), z.enum(['true', 'false', 'True', 'False']).transform((v) => v.toLowerCase() === 'true')]).optional(),
    extra_specs: specs.optional(),
  }),
});
const TypeUpdate = z.object({
  volume_type: z.looseObject({ name: z.string().trim().min(1).max(255).optional(), description: z.string().max(255).nullable().optional(), is_public: z.boolean().optional() }),
});

export function typeView(t: VolumeTypeRecord) {
  return { id: t.id, name: t.name, description: t.description, is_public: t.is_public, 'os-volume-type-access:is_public': t.is_public, extra_specs: t.extra_specs, qos_specs_id: null };
}

/** A volume type by id or name (Cinder takes either); the default one when none is named. */
export function resolveVolumeType(store: Store, ref: string | null | undefined): VolumeTypeRecord {
  if (!ref) return store.get('volume_types', DEFAULT_VOLUME_TYPE.id) ?? DEFAULT_VOLUME_TYPE;
  const t = store.get('volume_types', ref) ?? store.list('volume_types').find((x) => x.name === ref);
  if (!t) throw notFound(`Volume type with name ${ref} could not be found.`);
  return t;
}

export function isMultiattach(t: VolumeTypeRecord): boolean {
  return /^<is>\s*true$/i.test(t.extra_specs.multiattach ?? '');
}

function requireAdmin(ctx: RequestContext): void {
  if (!ctx.isAdmin) throw forbidden('Policy does not allow volume_extension:types_manage to be performed.');
}

export function typeRoutes(router: Router, store: Store, track: (op: string) => RequestHandler): void {
  const base = '/v3/:project_id/types';
  const find = (id: string) => {
    const t = id === 'default' ? resolveVolumeType(store, undefined) : store.get('volume_types', id);
    if (!t) throw notFound(`Volume type ${id} could not be found.`);
    return t;
  };

  router.get(base, track('type.list'), (_req, res) => {
    const ctx = ctxOf(res);
    res.json({ volume_types: store.list('volume_types').filter((t) => t.is_public || ctx.isAdmin).map(typeView) });
  });
  router.get(`${base}/:id`, track('type.show'), (req, res) => {
    res.json({ volume_type: typeView(find(param(req, 'id'))) });
  });
  router.post(base, track('type.create'), (req, res) => {
    requireAdmin(ctxOf(res));
    const body = parseBody(TypeCreate, req.body).volume_type;
    if (store.list('volume_types').some((t) => t.name === body.name)) throw conflict(`Volume Type ${body.name} already exists.`);
    const t = store.put('volume_types', { id: newUuid(), name: body.name, description: body.description ?? null, is_public: body['os-volume-type-access:is_public'] ?? true, extra_specs: body.extra_specs ?? {} });
    res.json({ volume_type: typeView(t) });
  });
  router.put(`${base}/:id`, track('type.update'), (req, res) => {
    requireAdmin(ctxOf(res));
    const t = find(param(req, 'id'));
    const body = parseBody(TypeUpdate, req.body).volume_type;
    if (body.name && body.name !== t.name && store.list('volume_types').some((x) => x.name === body.name)) throw conflict(`Volume Type ${body.name} already exists.`);
    const updated = store.put('volume_types', { ...t, name: body.name ?? t.name, description: body.description !== undefined ? body.description : t.description, is_public: body.is_public ?? t.is_public });
    res.json({ volume_type: typeView(updated) });
  });
  router.delete(`${base}/:id`, track('type.delete'), (req, res) => {
    requireAdmin(ctxOf(res));
    const t = find(param(req, 'id'));
    if (t.id === DEFAULT_VOLUME_TYPE.id) throw badRequest('Target volume type is the default volume type and cannot be deleted.');
    if (store.list('volumes').some((v) => v.volume_type === t.id)) throw badRequest('Target volume type is still in use.');
    store.remove('volume_types', t.id);
    res.status(202).end();
  });

  router.get(`${base}/:id/extra_specs`, track('type.extra_specs.list'), (req, res) => {
    res.json({ extra_specs: find(param(req, 'id')).extra_specs });
  });
  router.post(`${base}/:id/extra_specs`, track('type.extra_specs.set'), (req, res) => {
    requireAdmin(ctxOf(res));
    const t = find(param(req, 'id'));
    const { extra_specs } = parseBody(z.object({ extra_specs: specs }).strict(), req.body);
    res.json({ extra_specs: store.put('volume_types', { ...t, extra_specs: { ...t.extra_specs, ...extra_specs } }).extra_specs });
  });
  router.delete(`${base}/:id/extra_specs/:key`, track('type.extra_specs.delete'), (req, res) => {
    requireAdmin(ctxOf(res));
    const t = find(param(req, 'id'));
    const key = param(req, 'key');
    if (!Object.hasOwn(t.extra_specs, key)) throw notFound(`Volume Type ${t.id} has no extra specs with key ${key}.`);
    const { [key]: _gone, ...rest } = t.extra_specs;
    store.put('volume_types', { ...t, extra_specs: rest });
    res.status(202).end();
  });
}
