/**
 * Projects and users of the tests, made through the embedded Keystone's own
 * API (as an operator would: `openstack project create`, `user create`,
 * `role add`), with random passwords per run.
 */
import crypto from 'node:crypto';
import { KeystoneSession } from '../../infra/openstack/keystone';
import { readState } from '../harness/state';
import { adminToken } from './api';
import { fetchAgainIfIdleClosed } from './fetch-again';

export interface TestUser {
  name: string;
  password: string;
  project: string;
  projectId: string;
  /** A fresh or cached project-scoped token of this user. */
  token(): Promise<string>;
  /** Headers for call(): this user's token. */
  headers(extra?: Record<string, string>): Promise<Record<string, string>>;
  /** This user's own Keystone session (token and catalog), for the cloud's APIs as they see them. */
  session: KeystoneSession;
}

async function ks(method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetchAgainIfIdleClosed(`${readState().keystoneUrl}${path}`, {
    method, headers: { 'x-auth-token': await adminToken(), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  if (r.status >= 400 && r.status !== 409) throw new Error(`Keystone ${method} ${path} -> ${r.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function idOf(collection: string, name: string): Promise<string | undefined> {
  return (await ks('GET', `/${collection}?name=${encodeURIComponent(name)}`))[collection]?.[0]?.id;
}

/** A user with `role` on `project` (both created when missing; the password is reset to a new random one). */
export async function keystoneUser(project: string, user: string, role: 'admin' | 'member' | 'reader'): Promise<TestUser> {
  const projectId = (await idOf('projects', project)) ?? (await ks('POST', '/projects', { project: { name: project, domain_id: 'default' } })).project.id;
  const password = crypto.randomBytes(18).toString('base64url');
  let userId = await idOf('users', user);
  if (userId) await ks('PATCH', `/users/${userId}`, { user: { password } });
  else userId = (await ks('POST', '/users', { user: { name: user, domain_id: 'default', password } })).user.id;
  const roleId = await idOf('roles', role);
  if (!roleId) throw new Error(`Keystone has no role ${role}`);
  await ks('PUT', `/projects/${projectId}/users/${userId}/roles/${roleId}`);
  const session = new KeystoneSession({ authUrl: readState().keystoneUrl, username: user, password, project, region: 'RegionOne' });
  const token = async () => (await session.getToken()).value;
  return { name: user, password, project, projectId, token, headers: async (extra = {}) => ({ 'x-auth-token': await token(), ...extra }), session };
}
