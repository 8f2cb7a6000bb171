/**
 * The simulated Neutron v2.0 at <sim>/network (unversioned catalog URL;
 * neutronclient prefixes every path with /v2.0).
 */
import type { Request, Response, Router } from 'express';
import type { Faults } from '../faults/registry';
import { neutronError } from '../http/error-shapes';
import { notFound } from '../http/errors';
import { ctxOf, serviceRouter, type ServiceDeps } from '../http/service';
import { hostUrl } from '../http/urls';
import type { Store } from '../store/store';
import { extensionBody, extensionsBody } from './extensions';
import { networkRoutes } from './network-routes';
import { portRoutes } from './port-routes';
import { listBody } from './query';
import { securityGroupRoutes } from './security-group-routes';
import { subnetRoutes } from './subnet-routes';
import { tagRoutes } from './tag-routes';
import { param } from '../http/validate';

function versions(req: Request, res: Response): void {
  res.json({ versions: [{ id: 'v2.0', status: 'CURRENT', links: [{ rel: 'self', href: `${hostUrl(req)}/network/v2.0/` }] }] });
}

/** Collections this Neutron has none of (no L3, no floating IPs): listed empty, items 404. */
const EMPTY = ['floatingips', 'routers', 'segments', 'trunks', 'qos/policies', 'network-ip-availabilities', 'availability_zones'];

export function networkRouter(store: Store, faults: Faults, deps: ServiceDeps): Router {
  return serviceRouter(
    {
      name: 'network',
      renderError: neutronError,
      publicRoutes: (r) => {
        r.get('/', versions);
      },
      routes: (r, track) => {
        r.get(['/v2.0', '/v2.0/'], (req, res) => {
          const collections = ['networks', 'subnets', 'ports', 'security-groups', 'security-group-rules', 'extensions', ...EMPTY];
          res.json({ resources: collections.map((c) => ({ name: c, collection: c, links: [{ rel: 'self', href: `${hostUrl(req)}/network/v2.0/${c}` }] })) });
        });
        r.get('/v2.0/extensions', track('extension.list'), (_req, res) => {
          res.json(extensionsBody());
        });
        r.get('/v2.0/extensions/:alias', track('extension.show'), (req, res) => {
          const ext = extensionBody(param(req, 'alias'));
          if (!ext) throw notFound(`Extension with alias ${param(req, 'alias')} does not exist`, 'ExtensionNotFound');
          res.json({ extension: ext });
        });
        networkRoutes(r, store, track);
        subnetRoutes(r, store, track);
        portRoutes(r, store, faults, track);
        securityGroupRoutes(r, store, track);
        tagRoutes(r, store, track);
        for (const collection of EMPTY) {
          const key = collection.replace(/^qos\//, '').replace(/-/g, '_');
          r.get(`/v2.0/${collection}`, track(`${key}.list`), (req, res) => {
            ctxOf(res);
            res.json(listBody(key, [], req, `${hostUrl(req)}/network/v2.0`));
          });
          r.get(`/v2.0/${collection}/:id`, track(`${key}.show`), (req) => {
            throw notFound(`${key} ${param(req, 'id')} could not be found.`);
          });
        }
      },
    },
    deps,
  );
}
