/**
 * On-disk layout under <dataDir>/openstack and the per-dataDir secrets:
 * service-user passwords (service-users.json) and Heat's auth_encryption_key.
 * Generated once, kept 0600, so restarts on the same dataDir reuse them.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Layout {
  root: string; // <dataDir>/openstack
  logs: string;
  keystone: string; // keystone.conf, keystone.db, fernet-keys/, credential-keys/
  heat: string; // heat.conf, heat.db
  octavia: string; // octavia.conf, octavia.db
  serviceUsersFile: string;
  keystonePid: string;
  heatPid: string;
  octaviaPid: string;
  ownerPid: string; // the Node process that runs this cloud
}

export function layout(dataDir: string): Layout {
  const root = path.join(path.resolve(dataDir), 'openstack');
  const l: Layout = {
    root,
    logs: path.join(root, 'logs'),
    keystone: path.join(root, 'keystone'),
    heat: path.join(root, 'heat'),
    octavia: path.join(root, 'octavia'),
    serviceUsersFile: path.join(root, 'service-users.json'),
    keystonePid: path.join(root, 'keystone.pid'),
    heatPid: path.join(root, 'heat.pid'),
    octaviaPid: path.join(root, 'octavia.pid'),
    ownerPid: path.join(root, 'owner.pid'),
  };
  for (const d of [l.root, l.logs, l.keystone, l.heat, l.octavia]) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  return l;
}

export interface ServiceUser {
  username: string;
  password: string;
  project: 'service';
  /** Keystone domain *name* of the user (heat_domain_admin lives in domain `heat`). */
  domain: 'Default' | 'heat';
}
export type ServiceUserName = 'heat' | 'heat_domain_admin' | 'vimsim' | 'nfv' | 'octavia';
export type ServiceUsers = Record<ServiceUserName, ServiceUser>;
const NAMES: ServiceUserName[] = ['heat', 'heat_domain_admin', 'vimsim', 'nfv', 'octavia'];

/** Random base64url, never starting with '-' (a CLI would take `--os-password -x…` for an option). */
function secret(bytes: number): string {
  const s = crypto.randomBytes(bytes).toString('base64url');
  return s.startsWith('-') ? `x${s.slice(1)}` : s;
}

/** Reads (or creates, atomically and 0600) a small secret file. */
function readOrCreate(file: string, make: () => string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, make(), { mode: 0o600 });
  fs.renameSync(tmp, file);
  return fs.readFileSync(file, 'utf8');
}

export function loadServiceUsers(l: Layout): ServiceUsers {
  let users = JSON.parse(readOrCreate(l.serviceUsersFile, () => '{}')) as Partial<ServiceUsers>;
  const missing = NAMES.filter((n) => !users[n]?.password);
  if (missing.length) {
    // first start, or a file from an older layout: add what is missing, keep the rest
    for (const n of missing) {
      users[n] = { username: n, password: secret(24), project: 'service', domain: n === 'heat_domain_admin' ? 'heat' : 'Default' };
    }
    const tmp = `${l.serviceUsersFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(users, null, 2) + '\n', { mode: 0o600 });
    fs.renameSync(tmp, l.serviceUsersFile);
    users = JSON.parse(fs.readFileSync(l.serviceUsersFile, 'utf8'));
  }
  fs.chmodSync(l.serviceUsersFile, 0o600);
  return users as ServiceUsers;
}

/** The admin's password: `explicit` (ADMIN_PASSWORD), else generated once into <dataDir>/openstack/admin-password (0600). */
export function loadAdminPassword(l: Layout, explicit: string | undefined): string {
  if (explicit) return explicit;
  const file = path.join(l.root, 'admin-password');
  const pw = readOrCreate(file, () => secret(24) + '\n').trim();
  fs.chmodSync(file, 0o600);
  return pw;
}

/** Heat encrypts stored credentials with it: losing it breaks existing stacks. 32 chars. */
export function heatAuthEncryptionKey(l: Layout): string {
  return readOrCreate(path.join(l.heat, 'auth_encryption_key'), () => crypto.randomBytes(16).toString('hex')).trim();
}

/** Writes a file only when its content changed (mode applied either way). */
export function writeIfChanged(file: string, content: string, mode = 0o644): void {
  let old: string | undefined;
  try {
    old = fs.readFileSync(file, 'utf8');
  } catch {
    /* new file */
  }
  if (old !== content) fs.writeFileSync(file, content, { mode });
  fs.chmodSync(file, mode);
}
