/**
 * /v2/images: create (queued), upload (queued → saving → active; only size
 * and checksums are kept, never the bytes), list with Glance's filters and
 * marker paging, show, JSON-patch update, tags, delete.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Router } from 'express';
import { z } from 'zod';
import type { RequestContext } from '../auth/context';
import { ApiError, badRequest, conflict, forbidden, notFound } from '../http/errors';
import { ctxOf } from '../http/service';
import { parseBody, queryInt, queryString, param } from '../http/validate';
import type { ImageRecord } from '../store/records';
import type { Store } from '../store/store';
import { newUuid } from '../util/ids';
import { isoSeconds } from '../util/time';
import { CONTAINER_FORMATS, DISK_FORMATS, imageView } from './views';
import { imageVisible } from './visibility';

/** Largest upload accepted (Glance's image_size_cap is 1 TiB; nothing is stored, but the stream is read). */
const SIZE_CAP = 64 * 2 ** 30;
const RESERVED = new Set(['id', 'status', 'owner', 'size', 'virtual_size', 'checksum', 'os_hash_algo', 'os_hash_value', 'created_at', 'updated_at', 'self', 'file', 'schema', 'stores', 'locations', 'direct_url', 'os_hidden']);

const ImageCreate = z.looseObject({
  id: z.uuid().optional(),
  name: z.string().max(255).nullable().optional(),
  visibility: z.enum(['public', 'private', 'shared', 'community']).optional(),
  protected: z.boolean().optional(),
  disk_format: z.enum(DISK_FORMATS).nullable().optional(),
  container_format: z.enum(CONTAINER_FORMATS).nullable().optional(),
  min_ram: z.number().int().min(0).max(2 ** 31).optional(),
  min_disk: z.number().int().min(0).max(2 ** 31).optional(),
  tags: z.array(z.string().max(255)).max(128).optional(),
});

const Patch = z.array(z.object({ op: z.enum(['add', 'replace', 'remove']), path: z.string().min(2).max(255), value: z.unknown().optional() }).strict()).max(256);

function extraProperties(body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    if (Object.hasOwn(ImageCreate.shape, k)) continue;
    if (RESERVED.has(k)) throw forbidden(`Attribute '${k.slice(0, 60)}' is read-only.`);
    if (typeof v !== 'string' || k.length > 255 || v.length > 65535) throw badRequest(`Provided object does not match schema 'image': '${k.slice(0, 60)}' is not a string`);
    out[k] = v;
  }
  if (Object.keys(out).length > 128) throw new ApiError(413, 'Maximum number of image properties exceeded.');
  return out;
}

function visibleImage(store: Store, ctx: RequestContext, id: string): ImageRecord {
  const image = store.get('images', id);
  if (!image || !imageVisible(ctx, image)) throw notFound(`No image found with ID ${id}`);
  return image;
}

function mutableImage(store: Store, ctx: RequestContext, id: string): ImageRecord {
  const image = visibleImage(store, ctx, id);
  if (image.owner !== ctx.projectId && !ctx.isAdmin) throw forbidden('You are not permitted to modify this image.');
  return image;
}

function checkVisibility(ctx: RequestContext, visibility: string | undefined): void {
  if (visibility === 'public' && !ctx.isAdmin) throw forbidden('You are not authorized to complete publicize_image action.');
}

/** Applies one JSON-patch operation (top-level paths only, as Glance allows). */
function applyPatch(image: ImageRecord, op: z.infer<typeof Patch>[number], ctx: RequestContext): ImageRecord {
  const key = op.path.replace(/^\//, '');
  if (key.includes('/') && !key.startsWith('tags')) throw badRequest(`Invalid JSON pointer for this resource: '${op.path.slice(0, 60)}'`);
  if (RESERVED.has(key)) throw forbidden(`Attribute '${key}' is read-only.`);
  const next = { ...image, properties: { ...image.properties } };
  if (op.op === 'remove') {
    if (!Object.hasOwn(next.properties, key)) throw conflict(`Property ${key.slice(0, 60)} does not exist.`);
    delete next.properties[key];
    return next;
  }
  const fields = ImageCreate.partial().strict();
  if (Object.hasOwn(ImageCreate.shape, key)) {
    const parsed = parseBody(fields, { [key]: op.value });
    if (key === 'visibility') checkVisibility(ctx, parsed.visibility);
    if ((key === 'disk_format' || key === 'container_format') && image.status !== 'queued') throw forbidden(`Attribute ${key} can be only replaced for a queued image.`);
    return { ...next, ...parsed } as ImageRecord;
  }
  if (typeof op.value !== 'string') throw badRequest(`Provided object does not match schema 'image': '${key.slice(0, 60)}' is not a string`);
  if (op.op === 'add' && Object.hasOwn(next.properties, key)) throw conflict(`Property ${key.slice(0, 60)} already present.`);
  next.properties[key] = op.value;
  return next;
}

function listImages(store: Store, ctx: RequestContext, req: Request) {
  const q = req.query;
  const visibility = queryString(q, 'visibility');
  let images = store.list('images').filter((i) => imageVisible(ctx, i));
  images = visibility && visibility !== 'all' ? images.filter((i) => i.visibility === visibility) : visibility === 'all' ? images : images.filter((i) => i.visibility !== 'community' || i.owner === ctx.projectId);
  for (const key of Object.keys(q)) {
    if (['visibility', 'limit', 'marker', 'sort_key', 'sort_dir', 'sort', 'member_status', 'tag'].includes(key)) continue;
    const value = queryString(q, key);
    if (value === undefined) continue;
    const wanted = value.startsWith('in:') ? value.slice(3).split(',') : [value];
    images = images.filter((i) => {
      const v = (imageView(i) as Record<string, unknown>)[key];
      return v !== undefined && wanted.includes(String(v));
    });
  }
  const tag = queryString(q, 'tag');
  if (tag) images = images.filter((i) => i.tags.includes(tag));
  const sortKey = queryString(q, 'sort_key') ?? 'created_at';
  const desc = (queryString(q, 'sort_dir') ?? 'desc') === 'desc';
  images.sort((a, b) => {
    const x = String((imageView(a) as Record<string, unknown>)[sortKey] ?? '');
    const y = String((imageView(b) as Record<string, unknown>)[sortKey] ?? '');
    return (x < y ? -1 : x > y ? 1 : a.id.localeCompare(b.id)) * (desc ? -1 : 1);
  });
  const marker = queryString(q, 'marker');
  if (marker) {
    const at = images.findIndex((i) => i.id === marker);
    if (at < 0) throw badRequest(`Invalid marker. Image ${marker.slice(0, 64)} could not be found.`);
    images = images.slice(at + 1);
  }
  const limit = queryInt(q, 'limit', 1000) ?? 25;
  const body: Record<string, unknown> = { first: '/v2/images', schema: '/v2/schemas/images' };
  if (images.length > limit) {
    images = images.slice(0, limit);
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (k !== 'marker') for (const x of [v].flat()) if (typeof x === 'string') params.append(k, x);
    params.set('marker', images[images.length - 1].id);
    body.next = `/v2/images?${params}`;
  }
  return { images: images.map(imageView), ...body };
}

/** Reads the upload, keeping its size and checksums only. */
function digest(req: Request): Promise<{ size: number; md5: string; sha512: string }> {
  return new Promise((resolve, reject) => {
    const md5 = createHash('md5');
    const sha512 = createHash('sha512');
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > SIZE_CAP) {
        req.destroy();
        reject(new ApiError(413, `Image exceeds the storage quota: the upload is larger than ${SIZE_CAP} bytes.`));
        return;
      }
      md5.update(chunk);
      sha512.update(chunk);
    });
    req.on('end', () => resolve({ size, md5: md5.digest('hex'), sha512: sha512.digest('hex') }));
    req.on('error', () => reject(badRequest('The upload was interrupted.')));
  });
}

export function imageRoutes(router: Router, store: Store, track: (op: string) => RequestHandler): void {
  router.post('/v2/images', track('image.create'), (req, res) => {
    const ctx = ctxOf(res);
    const body = parseBody(ImageCreate, req.body);
    const properties = extraProperties(req.body as Record<string, unknown>);
    checkVisibility(ctx, body.visibility);
    if (body.id && store.get('images', body.id)) throw conflict(`Image with identifier ${body.id} already exists!`);
    const now = isoSeconds();
    const image = store.put('images', {
      id: body.id ?? newUuid(), name: body.name ?? null, status: 'queued', visibility: body.visibility ?? 'shared', owner: ctx.projectId,
      protected: body.protected ?? false, disk_format: body.disk_format ?? null, container_format: body.container_format ?? null,
      min_ram: body.min_ram ?? 0, min_disk: body.min_disk ?? 0, size: null, virtual_size: null, checksum: null, os_hash_algo: null,
      os_hash_value: null, tags: [...new Set(body.tags ?? [])], properties, created_at: now, updated_at: now,
    });
    res.status(201).location(`/v2/images/${image.id}`).json(imageView(image));
  });

  router.get('/v2/images', track('image.list'), (req, res) => {
    res.json(listImages(store, ctxOf(res), req));
  });

  router.get('/v2/images/:id', track('image.show'), (req, res) => {
    res.json(imageView(visibleImage(store, ctxOf(res), param(req, 'id'))));
  });

  router.patch('/v2/images/:id', track('image.update'), (req, res) => {
    const ctx = ctxOf(res);
    if (!String(req.get('content-type')).startsWith('application/openstack-images-v2.1-json-patch')) {
      throw new ApiError(415, 'Unsupported Content-Type: use application/openstack-images-v2.1-json-patch');
    }
    let image = mutableImage(store, ctx, param(req, 'id'));
    for (const op of parseBody(Patch, req.body)) image = applyPatch(image, op, ctx);
    image = store.put('images', { ...image, updated_at: isoSeconds() });
    res.json(imageView(image));
  });

  router.put('/v2/images/:id/file', track('image.upload'), async (req, res) => {
    const ctx = ctxOf(res);
    const image = mutableImage(store, ctx, param(req, 'id'));
    if (image.status !== 'queued') throw conflict(`Image status transition from ${image.status} to saving is not allowed`);
    if (!image.disk_format || !image.container_format) throw badRequest('Properties disk_format, container_format must be set prior to saving data.');
    store.put('images', { ...image, status: 'saving', updated_at: isoSeconds() });
    try {
      const d = await digest(req);
      const current = store.get('images', image.id);
      if (!current) throw new ApiError(410, 'Image was deleted during the upload.');
      store.put('images', { ...current, status: 'active', size: d.size, checksum: d.md5, os_hash_algo: 'sha512', os_hash_value: d.sha512, updated_at: isoSeconds() });
    } catch (err) {
      const current = store.get('images', image.id);
      if (current) store.put('images', { ...current, status: 'queued', updated_at: isoSeconds() });
      throw err;
    }
    res.status(204).end();
  });

  router.get('/v2/images/:id/file', track('image.download'), (req, res) => {
    const image = visibleImage(store, ctxOf(res), param(req, 'id'));
    if (image.status !== 'active') throw new ApiError(403, `Image ${image.id} is not active`);
    // The simulator keeps no image data: Glance's answer for an image without data.
    res.status(204).end();
  });

  router.put('/v2/images/:id/tags/:tag', track('image.tag.add'), (req, res) => {
    const image = mutableImage(store, ctxOf(res), param(req, 'id'));
    if (param(req, 'tag').length > 255) throw badRequest('Tag is too long');
    if (!image.tags.includes(param(req, 'tag'))) store.put('images', { ...image, tags: [...image.tags, param(req, 'tag')], updated_at: isoSeconds() });
    res.status(204).end();
  });

  router.delete('/v2/images/:id/tags/:tag', track('image.tag.delete'), (req, res) => {
    const image = mutableImage(store, ctxOf(res), param(req, 'id'));
    if (!image.tags.includes(param(req, 'tag'))) throw notFound(`Tag ${param(req, 'tag')} not found`);
    store.put('images', { ...image, tags: image.tags.filter((t) => t !== param(req, 'tag')), updated_at: isoSeconds() });
    res.status(204).end();
  });

  router.delete('/v2/images/:id', track('image.delete'), (req, res) => {
    const image = mutableImage(store, ctxOf(res), param(req, 'id'));
    if (image.protected) throw forbidden(`Image ${image.id} is protected and cannot be deleted.`);
    store.remove('images', image.id);
    res.status(204).end();
  });
}
