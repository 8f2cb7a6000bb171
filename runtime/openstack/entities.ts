/**
 * Idempotent Keystone setup, run on every start (ports may differ between runs
 * on one dataDir): project `service`, service users with the passwords from
 * service-users.json, Heat's roles and stack-user domain, and the catalog.
 */
import { issueToken, Json, KeystoneAdmin, KeystoneError } from './keystone-api';
import type { ServiceUser, ServiceUsers } from './state';

export const REGION = 'RegionOne';
const INTERFACES = ['public', 'internal', 'admin'] as const;

export interface CatalogEntry {
  type: string;
  name: string;
  url: string;
}

const trim = (u: string) => u.replace(/\/+$/, '');

export function catalog(o: { keystonePort: number; heatPort: number; octaviaPort: number; simulatorUrl: string; apiUrl: string }): CatalogEntry[] {
  const sim = trim(o.simulatorUrl);
  const api = trim(o.apiUrl);
  return [
    { type: 'identity', name: 'keystone', url: `http://127.0.0.1:${o.keystonePort}/v3` },
    { type: 'orchestration', name: 'heat', url: `http://127.0.0.1:${o.heatPort}/v1/$(project_id)s` },
    { type: 'compute', name: 'nova', url: `${sim}/compute/v2.1` },
    { type: 'network', name: 'neutron', url: `${sim}/network` },
    { type: 'image', name: 'glance', url: `${sim}/image` },
    { type: 'volumev3', name: 'cinderv3', url: `${sim}/volume/v3/$(project_id)s` },
    { type: 'load-balancer', name: 'octavia', url: `http://127.0.0.1:${o.octaviaPort}` },
    { type: 'nfv-orchestration', name: 'tacker', url: api },
    { type: 'container-infra', name: 'magnum', url: `${api}/v1` },
  ];
}

/** Makes the catalog exactly one service per type with one endpoint per interface in RegionOne. */
async function syncService(ks: KeystoneAdmin, e: CatalogEntry, allServices: Json[], allEndpoints: Json[]): Promise<number> {
  let changes = 0;
  const services = allServices.filter((s) => s.type === e.type);
  let id: string;
  if (!services.length) {
    id = (await ks.req('POST', '/services', { service: { type: e.type, name: e.name, enabled: true } })).service.id;
    changes++;
  } else {
    id = services[0].id;
    for (const dup of services.slice(1)) {
      await ks.req('DELETE', `/services/${dup.id}`); // Keystone drops its endpoints too
      changes++;
    }
  }
  const endpoints = allEndpoints.filter((x) => x.service_id === id);
  for (const iface of INTERFACES) {
    const mine = endpoints.filter((x) => x.interface === iface);
    const keep = mine.find((x) => x.region_id === REGION) ?? mine[0];
    for (const dup of mine.filter((x) => x !== keep)) {
      await ks.req('DELETE', `/endpoints/${dup.id}`);
      changes++;
    }
    if (!keep) {
      await ks.req('POST', '/endpoints', { endpoint: { service_id: id, interface: iface, region_id: REGION, url: e.url, enabled: true } });
      changes++;
    } else if (keep.url !== e.url || keep.region_id !== REGION || keep.enabled === false) {
      await ks.req('PATCH', `/endpoints/${keep.id}`, { endpoint: { url: e.url, region_id: REGION, enabled: true } });
      changes++;
    }
  }
  return changes;
}

/**
 * Creates the user or makes Keystone agree with the stored password. Checks with
 * a token request first: a password PATCH revokes all of the user's tokens,
 * which would log out a running simulator for nothing.
 */
async function syncUser(ks: KeystoneAdmin, u: ServiceUser, domainId: string): Promise<{ id: string; changed: boolean }> {
  const found = await ks.list('users', { name: u.username, domain_id: domainId });
  if (!found.length) {
    const body = { user: { name: u.username, domain_id: domainId, password: u.password, enabled: true, description: 'embedded cloud service user' } };
    try {
      return { id: (await ks.req('POST', '/users', body)).user.id, changed: true };
    } catch (e) {
      if (!(e instanceof KeystoneError && e.status === 409)) throw e;
      return syncUser(ks, u, domainId); // created concurrently
    }
  }
  const user = found[0];
  let ok = user.enabled !== false;
  if (ok) {
    try {
      await issueToken(ks.authUrl, { username: u.username, password: u.password, userDomain: { id: domainId } });
    } catch (e) {
      if (!(e instanceof KeystoneError && e.status === 401)) throw e;
      ok = false;
    }
  }
  if (!ok) await ks.req('PATCH', `/users/${user.id}`, { user: { password: u.password, enabled: true } });
  return { id: user.id, changed: !ok };
}

export interface EntityOptions {
  authUrl: string;
  adminPassword: string;
  users: ServiceUsers;
  catalog: CatalogEntry[];
  log: (m: string) => void;
}

export async function syncEntities(o: EntityOptions): Promise<void> {
  const ks = await KeystoneAdmin.login(o.authUrl, 'admin', o.adminPassword);
  const roleId = async (name: string, create = true): Promise<string> => {
    const found = await ks.list('roles', { name });
    if (found.length) return found[0].id;
    if (!create) throw new Error(`Keystone role ${name} is missing (bootstrap makes it)`);
    return ks.ensure('roles', 'role', { name }, { name });
  };
  const [admin, service] = await Promise.all([roleId('admin', false), roleId('service'), roleId('member', false), roleId('reader', false), roleId('heat_stack_user')]);
  const [project, heatDomain] = await Promise.all([
    ks.ensure('projects', 'project', { name: 'service', domain_id: 'default' }, { name: 'service', domain_id: 'default', description: 'service users' }),
    ks.ensure('domains', 'domain', { name: 'heat' }, { name: 'heat', description: 'Heat stack user domain', enabled: true }),
  ]);

  const u = o.users;
  const results = await Promise.all(
    [u.heat, u.vimsim, u.nfv, u.octavia].map(async (user) => {
      const r = await syncUser(ks, user, 'default');
      await Promise.all([ks.grant('projects', project, r.id, admin), ks.grant('projects', project, r.id, service)]);
      return r.changed;
    }),
  );
  const hda = await syncUser(ks, u.heat_domain_admin, heatDomain);
  await ks.grant('domains', heatDomain, hda.id, admin);

  const [services, endpoints] = await Promise.all([ks.list('services'), ks.list('endpoints')]);
  const catalogChanges = await Promise.all(o.catalog.map((e) => syncService(ks, e, services, endpoints)));
  const userChanges = results.filter(Boolean).length + (hda.changed ? 1 : 0);
  o.log(`keystone entities in sync (users created/reset: ${userChanges}, catalog changes: ${catalogChanges.reduce((a, b) => a + b, 0)})`);
}
