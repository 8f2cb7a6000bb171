/**
 * The simulated Nova v2.1 at <sim>/compute/v2.1 (catalog URL), version
 * documents at /compute/ and /compute/v2.1 without a token.
 */
import type { Router } from 'express';
import { novaStyleError } from '../http/error-shapes';
import { serviceRouter, type ServiceDeps } from '../http/service';
import { flavorRoutes } from './flavor-routes';
import { interfaceRoutes } from './interface-routes';
import { keypairRoutes } from './keypair-routes';
import { miscRoutes } from './misc-routes';
import { serverActionRoutes } from './server-actions';
import { serverGroupRoutes } from './server-group-routes';
import type { ComputeDeps } from './server-create';
import { serverRoutes } from './server-routes';
import { serverSubresourceRoutes } from './server-subresources';
import { negotiateMicroversion, versionDocument, versionList } from './versions';

export function computeRouter(deps: ComputeDeps, service: ServiceDeps): Router {
  return serviceRouter(
    {
      name: 'compute',
      renderError: novaStyleError,
      // Nova's sizelimit middleware: 112 KiB (user_data alone may be 64 KiB of base64).
      bodyLimit: '112kb',
      publicRoutes: (r) => {
        r.get('/', versionList);
        r.get(['/v2.1', '/v2.1/'], versionDocument);
      },
      before: [negotiateMicroversion],
      routes: (r, track) => {
        flavorRoutes(r, deps.store, track);
        keypairRoutes(r, deps.store, track);
        serverRoutes(r, deps, track);
        serverActionRoutes(r, deps, track);
        interfaceRoutes(r, deps, track);
        serverSubresourceRoutes(r, deps, track);
        serverGroupRoutes(r, deps.store, track);
        miscRoutes(r, deps.store, track);
      },
    },
    service,
  );
}
