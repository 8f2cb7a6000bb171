/** Neutron's standard-attr-tag API: /v2.0/<collection>/<id>/tags[/<tag>]. */
import type { RequestHandler, Router } from 'express';
import type { RequestContext } from '../auth/context';
import { badRequest, notFound } from '../http/errors';
import { ctxOf } from '../http/service';
import { parseBody, param } from '../http/validate';
import type { Store } from '../store/store';
import { isoSeconds } from '../util/time';
import { visibleGroup, visiblePort, visibleSubnet } from './lookup';
import { visibleNetwork } from './ports';
import { TagsBody } from './schemas';

const TAGGABLE = { networks: 'network', subnets: 'subnet', ports: 'port', 'security-groups': 'security_group' } as const;
type Collection = keyof typeof TAGGABLE;
const KIND = { networks: 'networks', subnets: 'subnets', ports: 'ports', 'security-groups': 'security_groups' } as const;

function taggable(store: Store, ctx: RequestContext, collection: string, id: string) {
  switch (collection as Collection) {
    case 'networks': return visibleNetwork(store, ctx, id);
    case 'subnets': return visibleSubnet(store, ctx, id);
    case 'ports': return visiblePort(store, ctx, id);
    case 'security-groups': return visibleGroup(store, ctx, id);
    default: throw notFound(`The resource could not be found.`);
  }
}

function setTags(store: Store, collection: string, record: { tags: string[]; revision_number: number }, tags: string[]): void {
  const kind = KIND[collection as Collection];
  store.put(kind, { ...record, tags: [...new Set(tags)], updated_at: isoSeconds(), revision_number: record.revision_number + 1 } as never);
}

function checkTag(tag: string): string {
  if (tag.length === 0 || tag.length > 255 || tag.includes(',') || tag.includes('/')) throw badRequest(`Invalid input for operation: '${tag.slice(0, 60)}' is not a valid tag.`, 'InvalidInput');
  return tag;
}

export function tagRoutes(router: Router, store: Store, track: (op: string) => RequestHandler): void {
  const base = '/v2.0/:collection/:id/tags';
  router.get(base, track('tags.list'), (req, res) => {
    res.json({ tags: taggable(store, ctxOf(res), param(req, 'collection'), param(req, 'id')).tags });
  });
  router.put(base, track('tags.replace'), (req, res) => {
    const record = taggable(store, ctxOf(res), param(req, 'collection'), param(req, 'id'));
    const { tags } = parseBody(TagsBody, req.body);
    tags.forEach(checkTag);
    setTags(store, param(req, 'collection'), record, tags);
    res.json({ tags: [...new Set(tags)] });
  });
  router.delete(base, track('tags.clear'), (req, res) => {
    setTags(store, param(req, 'collection'), taggable(store, ctxOf(res), param(req, 'collection'), param(req, 'id')), []);
    res.status(204).end();
  });
  router.get(`${base}/:tag`, track('tags.check'), (req, res) => {
    const record = taggable(store, ctxOf(res), param(req, 'collection'), param(req, 'id'));
    if (!record.tags.includes(param(req, 'tag'))) throw notFound(`Tag ${param(req, 'tag')} could not be found for ${TAGGABLE[param(req, 'collection') as Collection]} ${record.id}.`, 'TagNotFound');
    res.status(204).end();
  });
  router.put(`${base}/:tag`, track('tags.add'), (req, res) => {
    const record = taggable(store, ctxOf(res), param(req, 'collection'), param(req, 'id'));
    setTags(store, param(req, 'collection'), record, [...record.tags, checkTag(param(req, 'tag'))]);
    res.status(201).end();
  });
  router.delete(`${base}/:tag`, track('tags.remove'), (req, res) => {
    const record = taggable(store, ctxOf(res), param(req, 'collection'), param(req, 'id'));
    if (!record.tags.includes(param(req, 'tag'))) throw notFound(`Tag ${param(req, 'tag')} could not be found for ${TAGGABLE[param(req, 'collection') as Collection]} ${record.id}.`, 'TagNotFound');
    setTags(store, param(req, 'collection'), record, record.tags.filter((t) => t !== param(req, 'tag')));
    res.status(204).end();
  });
}
