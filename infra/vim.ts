/**
 * VIM registry access: the default VIM from configuration, registered VIMs
 * from the database (password sealed at rest), projects' trust-scoped
 * accesses to shared VIMs, and one cached Keystone session (Heat, Nova and
 * lookup clients) per VIM row so tokens are reused across activities.
 */
import fs from 'node:fs';
import type { Config } from '../common/config';
import type { Store } from '../store';
import { saveConfiguredDefaultVim, vimById, type VimRow } from '../store/repos/vims';
import type { SecretBox } from '../common/secrets';
import { KeystoneSession, type KeystoneCredentials } from './openstack/keystone';
import { HeatClient } from './openstack/heat';
import { NovaClient } from './openstack/nova';
import { CloudLookups } from './openstack/cloud-lookups';
import { NeutronClient } from './openstack/neutron';

/**
 * Makes the configured default VIM the one shared default row (created or
 * refreshed). It belongs to the project its credentials log in to (admin):
 * found by logging in; when Keystone cannot be reached yet, '' (admins only
 * may change it; every project may use it either way).
 */
export async function ensureDefaultVim(db: Store, box: SecretBox, cfg: Config): Promise<string> {
  const v = cfg.defaultVim;
  const caCert = v.caFile ? fs.readFileSync(v.caFile, 'utf8') : null;
  let owner = '';
  try {
    const session = new KeystoneSession({ authUrl: v.authUrl, username: v.username, password: v.password, project: v.project, userDomain: v.domain, projectDomain: v.domain, region: v.region, ca: caCert ?? undefined });
    owner = (await session.getToken()).projectId ?? '';
  } catch {
    /* keep '' */
  }
  return saveConfiguredDefaultVim(db, {
    name: 'default', description: 'the default VIM of this deployment, shared with every project', type: 'openstack',
    authUrl: v.authUrl, username: v.username, passwordSealed: box.seal(v.password),
    project: v.project, projectDomain: v.domain, userDomain: v.domain, region: v.region, caCert, isDefault: true, shared: true,
    // Keystone not reachable yet: an existing row keeps its owner, a new one gets ''.
    projectId: owner || undefined, status: 'REACHABLE', updatedAt: new Date().toISOString(),
  });
}

const clients = new Map<string, { key: string; session: KeystoneSession; heat: HeatClient; nova: NovaClient }>();

/**
 * The login a VIM row acts with: its own, or for a project's access to a
 * shared VIM (accessOf), the shared VIM's login scoped to the access's trust:
 * in that project, with the trust's roles only.
 */
async function credentialsOf(db: Store, box: SecretBox, vim: VimRow): Promise<{ key: string; creds: KeystoneCredentials }> {
  const login = vim.accessOf ? await vimById(db, vim.accessOf) : vim;
  if (!login) throw new Error(`VIM ${vim.accessOf} (shared with project ${vim.projectId}) is not registered`);
  if (vim.accessOf && !vim.trustId) throw new Error(`VIM access ${vim.id} has no trust`);
  return {
    key: `${login.passwordSealed}|${login.authUrl}|${login.username}|${vim.trustId ?? ''}`,
    creds: {
      authUrl: login.authUrl, username: login.username, password: box.open(login.passwordSealed), project: login.project,
      userDomain: login.userDomain, projectDomain: login.projectDomain, region: login.region, ca: login.caCert ?? undefined,
      trustId: vim.trustId ?? undefined,
    },
  };
}

/** The VIM's row (read once per call) and its clients, kept while its login is the same. */
async function clientsForVim(db: Store, box: SecretBox, vimId: string): Promise<{ vim: VimRow; session: KeystoneSession; heat: HeatClient; nova: NovaClient }> {
  const vim = await vimById(db, vimId);
  if (!vim) throw new Error(`VIM ${vimId} is not registered`);
  const { key, creds } = await credentialsOf(db, box, vim);
  const cached = clients.get(vimId);
  if (cached && cached.key === key) return { ...cached, vim };
  const session = new KeystoneSession(creds);
  const entry = { key, session, heat: new HeatClient(session, creds.ca), nova: new NovaClient(session, creds.ca) };
  clients.set(vimId, entry);
  return { ...entry, vim };
}

export async function heatForVim(db: Store, box: SecretBox, vimId: string): Promise<HeatClient> {
  return (await clientsForVim(db, box, vimId)).heat;
}

/** The VIM's Keystone session (its token and catalog), shared with its Heat and Nova clients. */
export async function sessionForVim(db: Store, box: SecretBox, vimId: string): Promise<KeystoneSession> {
  return (await clientsForVim(db, box, vimId)).session;
}

/** Nova, Glance and Neutron lookups with the VIM's own credentials (the worker acts as the VIM account). */
export async function lookupsForVim(db: Store, box: SecretBox, vimId: string): Promise<CloudLookups> {
  const { session, vim } = await clientsForVim(db, box, vimId);
  return new CloudLookups({ token: async () => (await session.getToken()).value, endpoint: (type) => session.endpoint(type), ca: vim.caCert ?? undefined });
}

export async function neutronForVim(db: Store, box: SecretBox, vimId: string): Promise<NeutronClient> {
  const { session, vim } = await clientsForVim(db, box, vimId);
  return new NeutronClient(session, vim.caCert ?? undefined);
}

export async function novaForVim(db: Store, box: SecretBox, vimId: string): Promise<NovaClient> {
  return (await clientsForVim(db, box, vimId)).nova;
}

export const stackNameFor = (vnfInstanceId: string) => `vnf-${vnfInstanceId}`;
