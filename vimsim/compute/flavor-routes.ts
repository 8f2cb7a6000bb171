/**
 * /flavors: list, detail, show and extra specs for everyone; create, delete
 * and extra-spec changes for admins (Heat's OS::Nova::Flavor), as Nova's
 * default policy has it. The seed holds devstack's public flavors.
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler, Router } from 'express';
import { conflict, forbidden, notFound } from '../http/errors';
import { ctxOf } from '../http/service';
import { param, parseBody } from '../http/validate';
import type { FlavorRecord } from '../store/records';
import type { Store } from '../store/store';
import { flavorById } from './lookup';
import { ExtraSpecsBody, FlavorCreate } from './schemas';
import { flavorDetail, flavorSummary } from './views';

export function flavorRoutes(router: Router, store: Store, track: (op: string) => RequestHandler): void {
  const sorted = () => store.list('flavors').sort((a, b) => Number(a.id) - Number(b.id) || a.id.localeCompare(b.id));
  const adminOnly = (res: Parameters<typeof ctxOf>[0], rule: string) => {
    if (!ctxOf(res).isAdmin) throw forbidden(`Policy doesn't allow os_compute_api:${rule} to be performed.`);
  };
  router.get('/v2.1/flavors', track('flavor.list'), (req, res) => {
    res.json({ flavors: sorted().map((f) => flavorSummary(f, req, res)) });
  });
  router.get('/v2.1/flavors/detail', track('flavor.list_detail'), (req, res) => {
    res.json({ flavors: sorted().map((f) => flavorDetail(f, req, res)) });
  });
  router.get('/v2.1/flavors/:id', track('flavor.show'), (req, res) => {
    res.json({ flavor: flavorDetail(flavorById(store, param(req, 'id')), req, res) });
  });
  router.post('/v2.1/flavors', track('flavor.create'), (req, res) => {
    adminOnly(res, 'os-flavor-manage:create');
    const f = parseBody(FlavorCreate, req.body).flavor;
    const id = f.id && f.id !== 'auto' ? f.id : randomUUID();
    if (store.get('flavors', id)) throw conflict(`Flavor with ID ${id} already exists.`);
    if (store.list('flavors').some((x) => x.name === f.name)) throw conflict(`Flavor with name ${f.name} already exists.`);
    const flavor: FlavorRecord = {
      id, name: f.name, vcpus: f.vcpus, ram: f.ram, disk: f.disk, ephemeral: f['OS-FLV-EXT-DATA:ephemeral'] ?? 0,
      swap: f.swap === '' || f.swap === undefined ? 0 : f.swap, rxtx_factor: f.rxtx_factor ?? 1,
      is_public: f['os-flavor-access:is_public'] ?? true, description: f.description ?? null, extra_specs: {},
    };
    store.tx(() => store.put('flavors', flavor));
    res.json({ flavor: flavorDetail(flavor, req, res) });
  });
  router.delete('/v2.1/flavors/:id', track('flavor.delete'), (req, res) => {
    adminOnly(res, 'os-flavor-manage:delete');
    const f = flavorById(store, param(req, 'id'));
    store.tx(() => store.remove('flavors', f.id));
    res.status(202).end();
  });
  router.get('/v2.1/flavors/:id/os-extra_specs', track('flavor.extra_specs'), (req, res) => {
    res.json({ extra_specs: flavorById(store, param(req, 'id')).extra_specs });
  });
  router.post('/v2.1/flavors/:id/os-extra_specs', track('flavor.extra_specs.set'), (req, res) => {
    adminOnly(res, 'os-flavor-extra-specs:create');
    const f = flavorById(store, param(req, 'id'));
    const { extra_specs } = parseBody(ExtraSpecsBody, req.body);
    const updated = { ...f, extra_specs: { ...f.extra_specs, ...extra_specs } };
    store.tx(() => store.put('flavors', updated));
    res.json({ extra_specs: updated.extra_specs });
  });
  router.get('/v2.1/flavors/:id/os-extra_specs/:key', track('flavor.extra_spec'), (req, res) => {
    const specs = flavorById(store, param(req, 'id')).extra_specs;
    if (!Object.hasOwn(specs, param(req, 'key'))) throw notFound(`Flavor ${param(req, 'id')} has no extra specs with key ${param(req, 'key')}.`);
    res.json({ [param(req, 'key')]: specs[param(req, 'key')] });
  });
  router.delete('/v2.1/flavors/:id/os-extra_specs/:key', track('flavor.extra_spec.delete'), (req, res) => {
    adminOnly(res, 'os-flavor-extra-specs:delete');
    const f = flavorById(store, param(req, 'id'));
    if (!Object.hasOwn(f.extra_specs, param(req, 'key'))) throw notFound(`Flavor ${f.id} has no extra specs with key ${param(req, 'key')}.`);
    const { [param(req, 'key')]: _gone, ...rest } = f.extra_specs;
    store.tx(() => store.put('flavors', { ...f, extra_specs: rest }));
    res.status(200).end();
  });
}
