/** A server's metadata, tags (≥ 2.26), ips and volume attachments. */
import type { RequestHandler, Response, Router } from 'express';
import { badRequest, notFound } from '../http/errors';
import { ctxOf } from '../http/service';
import { parseBody, param } from '../http/validate';
import type { ServerRecord, ServerVolume } from '../store/records';
import { isoSeconds } from '../util/time';
import { attachVolume, detachVolume } from '../volume/volumes';
import { invalidState, visibleServer } from './lookup';
import type { ComputeDeps } from './server-create';
import { MetadataBody, MetaItemBody, TagsBody, VolumeAttach } from './schemas';
import { atLeast } from './versions';
import { addressesOf } from './views';

const MAX_METADATA = 128;

function requireTags(res: Response): void {
  if (!atLeast(res, 26)) throw notFound('The resource could not be found.');
}

function volumeAttachmentView(s: ServerRecord, v: ServerVolume, res: Response) {
  return {
    id: v.volume_id,
    volumeId: v.volume_id,
    serverId: s.id,
    device: v.device,
    ...(atLeast(res, 70) ? { tag: null } : {}),
    ...(atLeast(res, 79) ? { delete_on_termination: v.delete_on_termination } : {}),
    ...(atLeast(res, 89) ? { attachment_id: v.attachment_id, bdm_uuid: v.attachment_id } : {}),
  };
}

export function serverSubresourceRoutes(router: Router, deps: ComputeDeps, track: (op: string) => RequestHandler): void {
  const { store } = deps;
  const server = (id: string, res: Response) => visibleServer(store, ctxOf(res), id);
  const setMetadata = (s: ServerRecord, metadata: Record<string, string>) => {
    if (Object.keys(metadata).length > MAX_METADATA) throw badRequest(`Quota exceeded for metadata items: The number of metadata items exceeds the maximum of ${MAX_METADATA}.`);
    store.put('servers', { ...s, metadata, updated: isoSeconds() });
    return metadata;
  };

  router.get('/v2.1/servers/:id/metadata', track('server.metadata.list'), (req, res) => {
    res.json({ metadata: server(param(req, 'id'), res).metadata });
  });
  router.post('/v2.1/servers/:id/metadata', track('server.metadata.update'), (req, res) => {
    const s = server(param(req, 'id'), res);
    res.json({ metadata: setMetadata(s, { ...s.metadata, ...parseBody(MetadataBody, req.body).metadata }) });
  });
  router.put('/v2.1/servers/:id/metadata', track('server.metadata.replace'), (req, res) => {
    res.json({ metadata: setMetadata(server(param(req, 'id'), res), parseBody(MetadataBody, req.body).metadata) });
  });
  router.get('/v2.1/servers/:id/metadata/:key', track('server.metadata.show'), (req, res) => {
    const s = server(param(req, 'id'), res);
    if (!Object.hasOwn(s.metadata, param(req, 'key'))) throw notFound('Metadata item was not found');
    res.json({ meta: { [param(req, 'key')]: s.metadata[param(req, 'key')] } });
  });
  router.put('/v2.1/servers/:id/metadata/:key', track('server.metadata.set'), (req, res) => {
    const s = server(param(req, 'id'), res);
    const { meta } = parseBody(MetaItemBody, req.body);
    if (Object.keys(meta).length !== 1 || !Object.hasOwn(meta, param(req, 'key'))) throw badRequest('Request body and URI mismatch');
    setMetadata(s, { ...s.metadata, ...meta });
    res.json({ meta });
  });
  router.delete('/v2.1/servers/:id/metadata/:key', track('server.metadata.delete'), (req, res) => {
    const s = server(param(req, 'id'), res);
    if (!Object.hasOwn(s.metadata, param(req, 'key'))) throw notFound('Metadata item was not found');
    const { [param(req, 'key')]: _gone, ...rest } = s.metadata;
    setMetadata(s, rest);
    res.status(204).end();
  });

  router.get('/v2.1/servers/:id/tags', track('server.tags.list'), (req, res) => {
    requireTags(res);
    res.json({ tags: server(param(req, 'id'), res).tags });
  });
  router.put('/v2.1/servers/:id/tags', track('server.tags.replace'), (req, res) => {
    requireTags(res);
    const s = server(param(req, 'id'), res);
    const tags = [...new Set(parseBody(TagsBody, req.body).tags)];
    store.put('servers', { ...s, tags, updated: isoSeconds() });
    res.json({ tags });
  });
  router.delete('/v2.1/servers/:id/tags', track('server.tags.clear'), (req, res) => {
    requireTags(res);
    store.put('servers', { ...server(param(req, 'id'), res), tags: [], updated: isoSeconds() });
    res.status(204).end();
  });
  router.get('/v2.1/servers/:id/tags/:tag', track('server.tags.check'), (req, res) => {
    requireTags(res);
    if (!server(param(req, 'id'), res).tags.includes(param(req, 'tag'))) throw notFound(`Tag ${param(req, 'tag')} could not be found.`);
    res.status(204).end();
  });
  router.put('/v2.1/servers/:id/tags/:tag', track('server.tags.add'), (req, res) => {
    requireTags(res);
    const s = server(param(req, 'id'), res);
    const tag = parseBody(TagsBody, { tags: [param(req, 'tag')] }).tags[0];
    if (!s.tags.includes(tag)) {
      if (s.tags.length >= 50) throw badRequest('The number of tags exceeded the per-server limit 50');
      store.put('servers', { ...s, tags: [...s.tags, tag], updated: isoSeconds() });
    }
    res.status(201).location(`${req.originalUrl}`).end();
  });
  router.delete('/v2.1/servers/:id/tags/:tag', track('server.tags.delete'), (req, res) => {
    requireTags(res);
    const s = server(param(req, 'id'), res);
    if (!s.tags.includes(param(req, 'tag'))) throw notFound(`Tag ${param(req, 'tag')} could not be found.`);
    store.put('servers', { ...s, tags: s.tags.filter((t) => t !== param(req, 'tag')), updated: isoSeconds() });
    res.status(204).end();
  });

  router.get('/v2.1/servers/:id/ips', track('server.ips'), (req, res) => {
    const addresses = addressesOf(server(param(req, 'id'), res), store);
    res.json({ addresses: Object.fromEntries(Object.entries(addresses).map(([net, list]) => [net, list.map((a) => ({ version: a.version, addr: a.addr }))])) });
  });

  router.get('/v2.1/servers/:id/os-volume_attachments', track('server.volume.list'), (req, res) => {
    const s = server(param(req, 'id'), res);
    res.json({ volumeAttachments: s.volumes.map((v) => volumeAttachmentView(s, v, res)) });
  });
  router.get('/v2.1/servers/:id/os-volume_attachments/:volumeId', track('server.volume.show'), (req, res) => {
    const s = server(param(req, 'id'), res);
    const v = s.volumes.find((x) => x.volume_id === param(req, 'volumeId'));
    if (!v) throw notFound(`Volume ${param(req, 'volumeId')} is not attached to the instance ${s.id}.`);
    res.json({ volumeAttachment: volumeAttachmentView(s, v, res) });
  });
  router.post('/v2.1/servers/:id/os-volume_attachments', track('server.volume.attach'), (req, res) => {
    const ctx = ctxOf(res);
    const s = server(param(req, 'id'), res);
    const body = parseBody(VolumeAttach, req.body).volumeAttachment;
    if (s.task_state !== null || !['ACTIVE', 'SHUTOFF', 'PAUSED', 'SUSPENDED'].includes(s.status)) throw invalidState(s, 'attach_volume');
    const volume = store.get('volumes', body.volumeId);
    if (!volume || (volume.project_id !== ctx.projectId && !ctx.isAdmin)) throw notFound(`Volume ${body.volumeId} could not be found.`);
    if (s.volumes.some((v) => v.volume_id === volume.id)) throw badRequest(`Invalid volume: volume ${volume.id} already attached`);
    if (volume.status !== 'available' && !(volume.multiattach && volume.status === 'in-use')) {
      throw badRequest(`Invalid volume: volume ${volume.id} status must be available or in-use with multiattach, but current status is: ${volume.status}`);
    }
    const device = body.device || `/dev/vd${String.fromCharCode(97 + s.volumes.length + 1)}`;
    const entry = store.tx(() => {
      const attachmentId = attachVolume(store, volume, s, device);
      const v: ServerVolume = { volume_id: volume.id, attachment_id: attachmentId, device, boot_index: null, delete_on_termination: body.delete_on_termination ?? false };
      store.put('servers', { ...s, volumes: [...s.volumes, v], updated: isoSeconds() });
      return v;
    });
    res.json({ volumeAttachment: volumeAttachmentView(s, entry, res) });
  });
  router.delete('/v2.1/servers/:id/os-volume_attachments/:volumeId', track('server.volume.detach'), (req, res) => {
    const s = server(param(req, 'id'), res);
    const v = s.volumes.find((x) => x.volume_id === param(req, 'volumeId'));
    if (!v) throw notFound(`Volume ${param(req, 'volumeId')} is not attached to the instance ${s.id}.`);
    if (v.boot_index === 0) throw badRequest(`Cannot detach a root device volume`);
    if (s.task_state !== null) throw invalidState(s, 'detach_volume');
    store.tx(() => {
      detachVolume(store, v.volume_id, s.id);
      store.put('servers', { ...s, volumes: s.volumes.filter((x) => x.volume_id !== v.volume_id), updated: isoSeconds() });
    });
    res.status(202).end();
  });
}
