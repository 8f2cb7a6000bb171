/**
 * The simulated Glance v2 at <sim>/image (unversioned catalog URL;
 * glanceclient requests /v2/...). Version documents without a token.
 */
import type { Request, Response, Router } from 'express';
import { glanceError } from '../http/error-shapes';
import { serviceRouter, type ServiceDeps } from '../http/service';
import { hostUrl } from '../http/urls';
import type { Store } from '../store/store';
import { imageRoutes } from './image-routes';
import { IMAGE_SCHEMA, IMAGES_SCHEMA } from './views';

const VERSIONS = ['2.17', '2.16', '2.15', '2.9', '2.7', '2.6', '2.5', '2.4', '2.3', '2.2', '2.1', '2.0'];

function versions(req: Request) {
  return {
    versions: VERSIONS.map((v, i) => ({ id: `v${v}`, status: i === 0 ? 'CURRENT' : 'SUPPORTED', links: [{ rel: 'self', href: `${hostUrl(req)}/image/v2/` }] })),
  };
}

export function imageRouter(store: Store, deps: ServiceDeps): Router {
  return serviceRouter(
    {
      name: 'image',
      renderError: glanceError,
      jsonTypes: ['application/openstack-images-v2.1-json-patch'],
      publicRoutes: (r) => {
        r.get('/', (req: Request, res: Response) => {
          res.status(300).json(versions(req));
        });
        r.get('/versions', (req: Request, res: Response) => {
          res.json(versions(req));
        });
      },
      routes: (r, track) => {
        r.get('/v2/schemas/image', track('schema.image'), (_req, res) => {
          res.json(IMAGE_SCHEMA);
        });
        r.get('/v2/schemas/images', track('schema.images'), (_req, res) => {
          res.json(IMAGES_SCHEMA);
        });
        imageRoutes(r, store, track);
      },
    },
    deps,
  );
}
