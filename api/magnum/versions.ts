/**
 * Version discovery, no token needed: GET / lists Magnum's v1 (Magnum's
 * shape, magnum/api/controllers/root.py) and Tacker's v1.0, so both clients
 * find theirs; GET /v1 is Magnum's v1 document with its resources' links.
 */
import { fmt, MAX_VERSION, MIN_VERSION } from './microversion';

export function rootDocument(base: string) {
  return {
    name: 'OpenStack Magnum API',
    description: 'Magnum is an OpenStack project which aims to provide container cluster management.',
    versions: [
      { id: 'v1', status: 'CURRENT', min_version: fmt(MIN_VERSION), max_version: fmt(MAX_VERSION), links: [{ href: `${base}/v1/`, rel: 'self' }] },
      { id: 'v1.0', status: 'CURRENT', links: [{ href: `${base}/v1.0`, rel: 'self' }] },
    ],
  };
}

const RESOURCES = ['clustertemplates', 'clusters', 'quotas', 'certificates', 'mservices', 'stats', 'federations', 'nodegroups', 'credentials'];

export function v1Document(base: string) {
  const doc: Record<string, unknown> = {
    id: 'v1',
    media_types: [{ base: 'application/json', type: 'application/vnd.openstack.magnum.v1+json' }],
    links: [
      { href: `${base}/v1/`, rel: 'self' },
      { href: 'https://docs.openstack.org/magnum/latest/', rel: 'describedby', type: 'text/html' },
    ],
  };
  for (const r of RESOURCES) {
    const path = r === 'nodegroups' ? 'clusters/{cluster_id}/nodegroups' : r;
    doc[r] = [{ href: `${base}/v1/${path}`, rel: 'self' }, { href: `${base}/${path}`, rel: 'bookmark' }];
  }
  return doc;
}
