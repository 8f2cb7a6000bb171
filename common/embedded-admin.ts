/**
 * The embedded cloud's admin password: ADMIN_PASSWORD when the operator set
 * it, else generated at the first start (runtime/openstack) into
 * DATA_DIR/openstack/admin-password, 0600, beside DATA_DIR/admin-openrc (the
 * same credentials as OS_* variables, for the stock clients). Nothing
 * documents a fixed password any more: package scripts and tenants cannot
 * guess it.
 */
import fs from 'node:fs';
import path from 'node:path';

export const adminPasswordFile = (dataDir: string) => path.join(dataDir, 'openstack', 'admin-password');
export const adminOpenrcFile = (dataDir: string) => path.join(dataDir, 'admin-openrc');

/** ADMIN_PASSWORD, else the generated one, if the embedded cloud has started once on this DATA_DIR. */
export function embeddedAdminPassword(dataDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.ADMIN_PASSWORD) return env.ADMIN_PASSWORD;
  try {
    return fs.readFileSync(adminPasswordFile(dataDir), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

const quote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

/** DATA_DIR/admin-openrc, 0600: `source` it to use the embedded cloud as its admin. */
export function writeAdminOpenrc(dataDir: string, authUrl: string, password: string): string {
  const file = adminOpenrcFile(dataDir);
  const vars: [string, string][] = [
    ['OS_AUTH_URL', authUrl], ['OS_IDENTITY_API_VERSION', '3'], ['OS_USERNAME', 'admin'], ['OS_PASSWORD', password],
    ['OS_PROJECT_NAME', 'admin'], ['OS_USER_DOMAIN_NAME', 'Default'], ['OS_PROJECT_DOMAIN_NAME', 'Default'], ['OS_REGION_NAME', 'RegionOne'],
  ];
  const text = `# The embedded cloud's admin (written at every start of the embedded cloud; 0600).\n${vars.map(([k, v]) => `export ${k}=${quote(v)}`).join('\n')}\n`;
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return file;
}
