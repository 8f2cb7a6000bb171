/**
 * The simulated Cinder v3 at <sim>/volume/v3/{project_id} (catalog URL
 * `<sim>/volume/v3/$(project_id)s`); version documents at /volume/ and
 * /volume/v3 without a token, as cinderclient discovers them.
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import { novaStyleError } from '../http/error-shapes';
import { forbidden } from '../http/errors';
import { ctxOf, serviceRouter, type ServiceDeps } from '../http/service';
import { hostUrl } from '../http/urls';
import { typeRoutes } from './type-routes';
import { volumeRoutes, type VolumeDeps } from './volume-routes';
import { param } from '../http/validate';

export const MAX_VOLUME_VERSION = '3.71';

function v3(req: Request) {
  return {
    id: 'v3.0',
    status: 'CURRENT',
    version: MAX_VOLUME_VERSION,
    min_version: '3.0',
    updated: '2023-08-31T00:00:00Z',
    links: [{ rel: 'describedby', type: 'text/html', href: 'https://docs.openstack.org/' }, { rel: 'self', href: `${hostUrl(req)}/volume/v3/` }],
    'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.volume+json;version=3' }],
  };
}

/** The project in the path must be the token's (an admin may name any). */
const projectInPath: RequestHandler = (req, res, next) => {
  const ctx = ctxOf(res);
  if (param(req, 'project_id') !== ctx.projectId && !ctx.isAdmin) throw forbidden('Policy does not allow this request to be performed: project in the URL is not the token\'s.');
  res.set('OpenStack-API-Version', `volume ${/volume\s+(3\.\d+)/i.exec(req.get('openstack-api-version') ?? '')?.[1] ?? '3.0'}`);
  next();
};

export function volumeRouter(deps: VolumeDeps, service: ServiceDeps): Router {
  return serviceRouter(
    {
      name: 'volume',
      renderError: novaStyleError,
      publicRoutes: (r) => {
        r.get('/', (req: Request, res: Response) => {
          res.status(300).json({ versions: [v3(req)] });
        });
        r.get(['/v3', '/v3/'], (req: Request, res: Response) => {
          res.json({ versions: [v3(req)] });
        });
      },
      routes: (r, track) => {
        r.use('/v3/:project_id', projectInPath);
        volumeRoutes(r, deps, track);
        typeRoutes(r, deps.store, track);
        r.get('/v3/:project_id/limits', track('limits'), (_req, res) => {
          const ctx = ctxOf(res);
          const mine = deps.store.list('volumes').filter((v) => v.project_id === ctx.projectId);
          res.json({
            limits: {
              rate: [],
              absolute: {
                maxTotalVolumes: 1000, maxTotalSnapshots: 10, maxTotalVolumeGigabytes: 100000, maxTotalBackups: 10, maxTotalBackupGigabytes: 1000,
                totalVolumesUsed: mine.length, totalGigabytesUsed: mine.reduce((n, v) => n + v.size, 0), totalSnapshotsUsed: 0, totalBackupsUsed: 0, totalBackupGigabytesUsed: 0,
              },
            },
          });
        });
        r.get('/v3/:project_id/extensions', track('extension.list'), (_req, res) => {
          const ext = (alias: string, name: string) => ({ alias, name, description: name, updated: '2023-01-01T00:00:00+00:00', links: [] });
          res.json({
            extensions: [
              ext('os-vol-tenant-attr', 'VolumeTenantAttribute'), ext('os-vol-host-attr', 'VolumeHostAttribute'), ext('os-vol-image-meta', 'VolumeImageMetadata'),
              ext('os-availability-zone', 'AvailabilityZones'), ext('os-types-manage', 'TypesManage'), ext('os-types-extra-specs', 'TypesExtraSpecs'),
              ext('os-admin-actions', 'AdminActions'),
            ],
          });
        });
        r.get('/v3/:project_id/os-availability-zone', track('availability_zone.list'), (_req, res) => {
          res.json({ availabilityZoneInfo: [{ zoneName: 'nova', zoneState: { available: true } }] });
        });
      },
    },
    service,
  );
}
