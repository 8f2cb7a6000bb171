/**
 * /v3/{project_id}/volumes: create (creating → available), list/detail,
 * show, update, delete (deleting → gone; 400 while in use), actions
 * (os-extend, os-set_bootable, os-update_readonly_flag, os-reset_status),
 * metadata. Volume faults (create, delete) come from the admin API.
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import { z } from 'zod';
import type { RequestContext } from '../auth/context';
import type { Faults } from '../faults/registry';
import { badRequest, forbidden, notFound } from '../http/errors';
import { ctxOf } from '../http/service';
import { parseBody, queryInt, queryString, param } from '../http/validate';
import { imageVisible } from '../image/visibility';
import type { Transitions } from '../lifecycle/transitions';
import type { VolumeRecord } from '../store/records';
import type { Store } from '../store/store';
import { isoMicros } from '../util/time';
import { volumeDetail, volumeSummary } from './views';
import { createVolume } from './volumes';

export interface VolumeDeps {
  store: Store;
  faults: Faults;
  transitions: Transitions;
}

const metadata = z.record(z.string().min(1).max(255), z.string().max(255));

const VolumeCreate = z.object({
  volume: z.looseObject({
    size: z.union([z.number().int().positive().max(16384), z.string().regex(/^\d{1,5}$/).transform(Number)]).optional(),
    name: z.string().max(255).nullable().optional(),
    description: z.string().max(255).nullable().optional(),
    imageRef: z.string().max(255).nullable().optional(),
    volume_type: z.string().max(255).nullable().optional(),
    availability_zone: z.string().max(255).nullable().optional(),
    metadata: metadata.optional(),
    multiattach: z.boolean().optional(),
    snapshot_id: z.string().max(255).nullable().optional(),
    source_volid: z.string().max(255).nullable().optional(),
    backup_id: z.string().max(255).nullable().optional(),
  }),
});

const VolumeUpdate = z.object({
  volume: z.looseObject({ name: z.string().max(255).nullable().optional(), description: z.string().max(255).nullable().optional(), metadata: metadata.optional() }),
});

const Action = z.record(z.string(), z.unknown()).refine((b) => Object.keys(b).length === 1, 'exactly one action per request');
const Extend = z.looseObject({ new_size: z.union([z.number().int().positive(), z.string().regex(/^\d{1,5}$/).transform(Number)]) });
const Bool = z.union([z.boolean(), z.enum(['true', 'false', 'True', 'False']).transform((v) => v.toLowerCase() === 'true')]);
const DELETABLE = ['available', 'error', 'error_restoring', 'error_extending', 'error_managing', 'error_deleting'];

export function visibleVolume(store: Store, ctx: RequestContext, id: string): VolumeRecord {
  const v = store.get('volumes', id);
  if (!v || (v.project_id !== ctx.projectId && !ctx.isAdmin)) throw notFound(`Volume ${id} could not be found.`);
  return v;
}

function listed(store: Store, req: Request, res: Response): VolumeRecord[] {
  const ctx = ctxOf(res);
  const all = ['1', 'true', 'True'].includes(queryString(req.query, 'all_tenants') ?? '') && ctx.isAdmin;
  let vols = store.list('volumes').filter((v) => all || v.project_id === ctx.projectId);
  const name = queryString(req.query, 'name');
  if (name !== undefined) vols = vols.filter((v) => v.name === name);
  const status = queryString(req.query, 'status');
  if (status) vols = vols.filter((v) => v.status === status);
  vols = vols.sort((a, b) => b.created_at.localeCompare(a.created_at));
  const marker = queryString(req.query, 'marker');
  if (marker) {
    const at = vols.findIndex((v) => v.id === marker);
    if (at < 0) throw notFound(`Marker ${marker.slice(0, 64)} could not be found.`);
    vols = vols.slice(at + 1);
  }
  const limit = queryInt(req.query, 'limit', 1000);
  return limit === undefined ? vols : vols.slice(0, limit);
}

export function volumeRoutes(router: Router, deps: VolumeDeps, track: (op: string) => RequestHandler): void {
  const { store, faults, transitions } = deps;
  const base = '/v3/:project_id/volumes';

  router.post(base, track('volume.create'), (req, res) => {
    const ctx = ctxOf(res);
    const body = parseBody(VolumeCreate, req.body).volume;
    if (body.snapshot_id || body.source_volid || body.backup_id) throw badRequest('Invalid input received: volumes from snapshots, volumes or backups are not simulated.');
    let size = body.size;
    if (body.imageRef) {
      const image = store.get('images', body.imageRef);
      if (!image || !imageVisible(ctx, image)) throw badRequest(`Invalid image identifier or unable to access requested image.`);
      const needed = Math.max(image.min_disk, Math.ceil((image.size ?? 0) / 2 ** 30));
      size ??= needed;
      if (size < needed) throw badRequest(`Invalid input received: Size of specified image ${Math.ceil((image.size ?? 0) / 2 ** 30)}GB is larger than volume size ${size}GB.`);
    }
    if (size === undefined) throw badRequest('Invalid input received: Size must be specified');
    if (body.availability_zone && body.availability_zone !== 'nova') throw badRequest(`Invalid input received: Availability zone '${body.availability_zone}' is invalid.`);
    const volume = createVolume(store, faults, transitions, ctx, {
      name: body.name ?? null, description: body.description, size, imageId: body.imageRef, volumeType: body.volume_type,
      availabilityZone: body.availability_zone, metadata: body.metadata, multiattach: body.multiattach,
    });
    res.status(202).json({ volume: volumeDetail(volume, store, ctx, req) });
  });

  router.get(base, track('volume.list'), (req, res) => {
    res.json({ volumes: listed(store, req, res).map((v) => volumeSummary(v, req)) });
  });
  router.get(`${base}/detail`, track('volume.list_detail'), (req, res) => {
    const ctx = ctxOf(res);
    res.json({ volumes: listed(store, req, res).map((v) => volumeDetail(v, store, ctx, req)) });
  });
  router.get(`${base}/:id`, track('volume.show'), (req, res) => {
    const ctx = ctxOf(res);
    res.json({ volume: volumeDetail(visibleVolume(store, ctx, param(req, 'id')), store, ctx, req) });
  });

  router.put(`${base}/:id`, track('volume.update'), (req, res) => {
    const ctx = ctxOf(res);
    const v = visibleVolume(store, ctx, param(req, 'id'));
    const body = parseBody(VolumeUpdate, req.body).volume;
    const updated = store.put('volumes', {
      ...v,
      name: body.name !== undefined ? body.name : v.name,
      description: body.description !== undefined ? body.description : v.description,
      metadata: body.metadata ?? v.metadata,
      updated_at: isoMicros(),
    });
    res.json({ volume: volumeDetail(updated, store, ctx, req) });
  });

  router.delete(`${base}/:id`, track('volume.delete'), (req, res) => {
    const v = visibleVolume(store, ctxOf(res), param(req, 'id'));
    if (!DELETABLE.includes(v.status) || v.attachments.length > 0) {
      throw badRequest(
        'Invalid volume: Volume status must be available or error or error_restoring or error_extending or error_managing and must not be migrating, attached, belong to a group, have snapshots, awaiting a transfer, or be disassociated from snapshots after volume transfer.',
      );
    }
    const fault = faults.take('volume', 'delete', v.name ?? '');
    store.put('volumes', { ...v, status: 'deleting', updated_at: isoMicros(), pending: transitions.pending('delete', fault, { message: 'Volume deletion failed.', code: 500 }) });
    res.status(202).end();
  });

  router.post(`${base}/:id/action`, (req, res) => {
    const ctx = ctxOf(res);
    const v = visibleVolume(store, ctx, param(req, 'id'));
    const [action, raw] = Object.entries(parseBody(Action, req.body))[0];
    track(`volume.action.${/^[\w-]{1,40}$/.test(action) ? action : 'invalid'}`)(req, res, () => undefined);
    switch (action) {
      case 'os-extend': {
        const { new_size } = parseBody(Extend, raw);
        if (v.status !== 'available') throw badRequest(`Invalid volume: Volume ${v.id} status must be available to extend, but current status is: ${v.status}.`);
        if (new_size <= v.size) throw badRequest(`Invalid input received: New size for extend must be greater than current size. (current: ${v.size}, extended: ${new_size}).`);
        store.put('volumes', { ...v, status: 'extending', updated_at: isoMicros(), pending: transitions.pending('extend', undefined, undefined, { size: String(new_size) }) });
        res.status(202).end();
        return;
      }
      case 'os-set_bootable': {
        const { bootable } = parseBody(z.looseObject({ bootable: Bool }), raw);
        store.put('volumes', { ...v, bootable, updated_at: isoMicros() });
        res.status(200).end();
        return;
      }
      case 'os-update_readonly_flag': {
        const { readonly } = parseBody(z.looseObject({ readonly: Bool }), raw);
        store.put('volumes', { ...v, metadata: { ...v.metadata, readonly: readonly ? 'True' : 'False' }, updated_at: isoMicros() });
        res.status(202).end();
        return;
      }
      case 'os-reset_status': {
        if (!ctx.isAdmin) throw forbidden('Policy does not allow volume_extension:volume_admin_actions:reset_status to be performed.');
        const { status } = parseBody(z.looseObject({ status: z.enum(['available', 'error', 'in-use', 'error_deleting', 'creating', 'deleting', 'detaching', 'attaching']) }), raw);
        store.put('volumes', { ...v, status, updated_at: isoMicros(), pending: null });
        res.status(202).end();
        return;
      }
      default:
        throw badRequest(`Invalid input received: action ${action.slice(0, 60)} is not supported.`);
    }
  });

  router.get(`${base}/:id/metadata`, track('volume.metadata.list'), (req, res) => {
    res.json({ metadata: visibleVolume(store, ctxOf(res), param(req, 'id')).metadata });
  });
  router.post(`${base}/:id/metadata`, track('volume.metadata.update'), (req, res) => {
    const v = visibleVolume(store, ctxOf(res), param(req, 'id'));
    const { metadata: m } = parseBody(z.object({ metadata }).strict(), req.body);
    const merged = store.put('volumes', { ...v, metadata: { ...v.metadata, ...m }, updated_at: isoMicros() }).metadata;
    res.json({ metadata: merged });
  });
  router.put(`${base}/:id/metadata`, track('volume.metadata.replace'), (req, res) => {
    const v = visibleVolume(store, ctxOf(res), param(req, 'id'));
    const { metadata: m } = parseBody(z.object({ metadata }).strict(), req.body);
    res.json({ metadata: store.put('volumes', { ...v, metadata: m, updated_at: isoMicros() }).metadata });
  });
  router.delete(`${base}/:id/metadata/:key`, track('volume.metadata.delete'), (req, res) => {
    const v = visibleVolume(store, ctxOf(res), param(req, 'id'));
    if (!Object.hasOwn(v.metadata, param(req, 'key'))) throw notFound(`Volume ${v.id} has no metadata with key ${param(req, 'key')}.`);
    const { [param(req, 'key')]: _gone, ...rest } = v.metadata;
    store.put('volumes', { ...v, metadata: rest, updated_at: isoMicros() });
    res.status(200).end();
  });

}
