/**
 * /v1/clustertemplates (magnum/api/controllers/v1/cluster_template.py):
 * create (201 + Location), list and detail, show, PATCH (JSON patch; labels
 * as the client's Python literal), delete. Public and hidden are for
 * admins; a template some cluster uses keeps everything but its name, tags,
 * hidden flag and publication; its VIM references are checked on create and
 * whenever a patch changes them.
 */
import crypto from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { defaultVimFor } from '../../../store/repos/vims';
import {
  deleteTemplate, insertTemplate, templateById, templateInUse, updateTemplate, visibleTemplates, type TemplateRow,
} from '../../../store/repos/magnum/templates';
import { badRequest, forbidden, HttpError } from '../../../common/http-error';
import { PatchBody } from '../../../model/magnum/cluster';
import {
  ClusterTemplateInput, NETWORK_DRIVERS, TEMPLATE_READ_ONLY, TEMPLATE_UNREMOVABLE, VOLUME_DRIVERS, withTemplateDefaults,
} from '../../../model/magnum/template';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { magnumBody } from '../body';
import { callerOf, tokenOf, type Caller } from '../caller';
import { checkTemplateAgainstVim } from '../../../ops/magnum/shared/cloud-checks';
import { paginate } from '../collection';
import { findTemplate, lookupsFor } from '../lookups';
import { applyPatch } from '../../../model/magnum/json-patch';
import { generatedName } from '../../../model/magnum/names';
import { templateDict, templateProxies, type Proxies } from '../views/template';

/** Changes a template in use may still take (Magnum's db api `_is_publishing_cluster_template`, and its name). */
function allowedInUse(delta: Record<string, unknown>): boolean {
  const keys = Object.keys(delta);
  if (keys.length !== 1) return false;
  const [k] = keys;
  return (k === 'public' && delta.public === true) || k === 'hidden' || (k === 'tags' && delta.tags !== null) || k === 'name';
}

/** Magnum's API-side checks of drivers and volume sizes (attr_validator, api/validation.py). */
function checkDrivers(t: ClusterTemplateInput): void {
  if (t.network_driver && !(NETWORK_DRIVERS as readonly string[]).includes(t.network_driver)) {
    throw badRequest(`Network driver type ${t.network_driver} is not supported, expecting a ${JSON.stringify(['flannel', 'calico'])} network driver.`);
  }
  if (t.volume_driver && !(VOLUME_DRIVERS as readonly string[]).includes(t.volume_driver)) {
    throw badRequest(`Volume driver type ${t.volume_driver} is not supported, expecting a ${JSON.stringify([...VOLUME_DRIVERS])} volume driver.`);
  }
  if (t.docker_storage_driver === 'devicemapper' && (t.docker_volume_size ?? 0) < 3) {
    throw badRequest(`docker volume size ${t.docker_volume_size ?? 'None'} GB is not valid, expecting minimum value 3GB for devicemapper storage driver.`);
  }
}

export function templatesRouter(ctx: ApiContext): Router {
  const { db, box } = ctx;
  const r = Router();
  const base = ctx.cfg.apiBaseUrl;
  const read = authorize('clustertemplates', 'read');
  const write = authorize('clustertemplates', 'write');
  const view = (t: TemplateRow) => templateDict(t, templateProxies(box, t), base);

  const find = (res: Response, ident: string) => findTemplate(ctx, callerOf(res), ident);
  const requireOwner = (c: Caller, t: TemplateRow, action: string) => {
    if (!c.isAdmin && t.projectId !== c.projectId) throw forbidden(`Policy doesn't allow clustertemplate:${action} to be performed.`);
  };
  const requirePublisher = (c: Caller) => {
    if (!c.isAdmin) throw forbidden('Not authorized to set public or hidden flag for cluster template.');
  };
  const vimChecks = async (req: Request, res: Response, t: ClusterTemplateInput) => {
    const vim = await defaultVimFor(db, { projectId: callerOf(res).projectId, all: false });
    if (!vim) throw new HttpError(503, 'no VIM is configured for this deployment');
    return checkTemplateAgainstVim(await lookupsFor(ctx, tokenOf(req), vim.id), t);
  };

  const list = async (req: Request, res: Response) => {
    const rows = await visibleTemplates(db, callerOf(res));
    const page = paginate(rows, req.query, {
      what: 'ClusterTemplate', url: `${base}/v1/clustertemplates`, uuidOf: (t) => t.id,
      sortable: { id: (t) => t.createdAt, uuid: (t) => t.id, name: (t) => t.name, created_at: (t) => t.createdAt, updated_at: (t) => t.updatedAt, coe: (t) => t.attrs.coe, image_id: (t) => t.attrs.image_id },
    });
    res.json({ clustertemplates: page.items.map(view), ...(page.next ? { next: page.next } : {}) });
  };
  r.get('/clustertemplates', read, list);
  r.get('/clustertemplates/detail', read, list);
  r.get('/clustertemplates/:ident', read, async (req, res) => { res.json(view(await find(res, String(req.params.ident)))); });

  r.post('/clustertemplates', write, async (req, res) => {
    const c = callerOf(res);
    const input = magnumBody(ClusterTemplateInput, req.body, { resource: 'cluster_template', readOnly: TEMPLATE_READ_ONLY });
    if (input.public || input.hidden) requirePublisher(c);
    checkDrivers(input);
    const { clusterDistro } = await vimChecks(req, res, input);
    const proxies: Proxies = { http_proxy: input.http_proxy, https_proxy: input.https_proxy };
    const now = new Date().toISOString();
    const row = await insertTemplate(db, {
      id: crypto.randomUUID(), projectId: c.projectId, userId: c.userId, name: input.name ?? generatedName('template'),
      public: input.public ?? false, hidden: input.hidden ?? false,
      attrs: { ...withTemplateDefaults(input), cluster_distro: clusterDistro },
      proxiesSealed: proxies.http_proxy || proxies.https_proxy ? box.sealJson(proxies) : null, createdAt: now,
    });
    res.status(201).location(`${base}/v1/clustertemplates/${row.id}`).json(view(row));
  });

  r.patch('/clustertemplates/:ident', write, async (req, res) => {
    const c = callerOf(res);
    const current = await find(res, String(req.params.ident));
    requireOwner(c, current, 'update');
    if (!Array.isArray(req.body)) throw badRequest('Invalid input for field/attribute patch. The body must be a JSON patch: a list of {op, path, value}.');
    const ops = PatchBody.safeParse(req.body);
    if (!ops.success) throw badRequest(`Invalid input for field/attribute patch. ${ops.error.issues[0].path.join('.')}: ${ops.error.issues[0].message}`);
    const proxies = templateProxies(box, current);
    const before = templateDict(current, proxies, base, false);
    const patched = applyPatch(before, ops.data, { mandatory: TEMPLATE_UNREMOVABLE, dicts: ['labels'] });
    const fields = Object.fromEntries(Object.entries(patched).filter(([k]) => !(TEMPLATE_READ_ONLY as readonly string[]).includes(k)));
    const input = magnumBody(ClusterTemplateInput, fields, { resource: 'cluster_template' });
    const delta = Object.fromEntries(Object.keys(fields).filter((k) => JSON.stringify(fields[k]) !== JSON.stringify(before[k])).map((k) => [k, fields[k]]));
    if (!Object.keys(delta).length) { res.json(view(current)); return; }
    if ('public' in delta || 'hidden' in delta) requirePublisher(c);
    const inUse = await templateInUse(db, current.id);
    const referenced = () => badRequest(`ClusterTemplate ${current.id} is referenced by one or multiple clusters.`);
    if (inUse && !allowedInUse(delta)) throw referenced();
    checkDrivers(input);
    let clusterDistro = current.attrs.cluster_distro;
    if (['image_id', 'flavor_id', 'master_flavor_id', 'external_network_id', 'fixed_network', 'fixed_subnet', 'server_type', 'labels'].some((k) => k in delta)) {
      clusterDistro = (await vimChecks(req, res, input)).clusterDistro;
    }
    const nextProxies: Proxies = { http_proxy: input.http_proxy, https_proxy: input.https_proxy };
    const outcome = await updateTemplate(db, current.id, {
      name: input.name ?? current.name, public: input.public ?? false, hidden: input.hidden ?? false,
      attrs: { ...withTemplateDefaults(input), cluster_distro: clusterDistro },
      proxiesSealed: nextProxies.http_proxy || nextProxies.https_proxy ? box.sealJson(nextProxies) : null,
    }, allowedInUse(delta));
    if (outcome === 'in-use') throw referenced();
    res.json(view((await templateById(db, current.id))!));
  });

  r.delete('/clustertemplates/:ident', write, async (req, res) => {
    const c = callerOf(res);
    const t = await find(res, String(req.params.ident));
    requireOwner(c, t, 'delete');
    if ((await deleteTemplate(db, t.id)) === 'in-use') throw badRequest(`ClusterTemplate ${t.id} is referenced by one or multiple clusters.`);
    res.status(204).end();
  });
  return r;
}
