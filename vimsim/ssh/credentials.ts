/**
 * Login accounts of a server, the way cloud-init would set them up from its
 * user_data: `#cloud-config` (password + chpasswd/ssh_pwauth, users with
 * plain_text_passwd/passwd, sudo, groups, ssh_authorized_keys), a shell
 * script doing `echo user:pw | chpasswd`, MIME multipart of those, or
 * base64 of any of them. Without them the image's default users
 * (simulator option sshUsers) apply. Crypt hashes (`passwd: $6$...`,
 * hashed_passwd) cannot be checked, so such users log in with keys only.
 */
import YAML from 'yaml';
import type { AccountSpec, SudoPolicy } from './host/accounts';

/** A default account of the simulated image (simulator option / VIMSIM_SSH_USERS). */
export interface SshUser {
  username: string;
  password?: string;
  authorizedKeys?: string[];
  sudo?: SudoPolicy;
}

export const DEFAULT_SSH_USERS: SshUser[] = [{ username: 'ubuntu', password: 'ubuntu' }];

export interface BootConfig {
  accounts: AccountSpec[];
  hostname?: string;
}

type CloudConfig = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : []);
const plainPassword = (v: unknown): string | undefined => (typeof v === 'string' && !v.startsWith('$') && v !== 'RANDOM' ? v : undefined);

function sudoPolicy(value: unknown, groups: string[]): SudoPolicy {
  const rules = strings(Array.isArray(value) ? value : typeof value === 'string' ? [value] : []);
  if (rules.some((r) => r.includes('NOPASSWD'))) return 'nopasswd';
  if (rules.length > 0 || groups.includes('sudo') || groups.includes('admin')) return 'password';
  return 'none';
}

/** The parts of user_data: MIME parts, base64, or the text itself. */
function documents(userData: string): string[] {
  const text = userData.trim();
  const boundary = /boundary="?([^"\s;]+)"?/i.exec(text);
  if (/^(MIME-Version|Content-Type):/im.test(text) && boundary) {
    return text.split(`--${boundary[1]}`).slice(1).flatMap((part) => {
      const split = part.search(/\r?\n\r?\n/);
      if (split < 0) return [];
      const headers = part.slice(0, split);
      let body = part.slice(split).trim();
      if (/Content-Transfer-Encoding:\s*base64/i.test(headers)) body = Buffer.from(body, 'base64').toString('utf8');
      return body ? documents(body) : [];
    });
  }
  if (/^[A-Za-z0-9+/=\s]+$/.test(text) && text.length >= 16) {
    const decoded = Buffer.from(text, 'base64').toString('utf8');
    if (decoded.startsWith('#') || decoded.startsWith('Content-Type') || decoded.startsWith('MIME')) return documents(decoded);
  }
  return [text];
}

/** Applies one `#cloud-config` document. */
function applyCloudConfig(cfg: CloudConfig, boot: BootConfig, defaults: AccountSpec[]): void {
  if (Array.isArray(cfg.users)) {
    const keepDefaults = cfg.users.includes('default');
    boot.accounts = keepDefaults ? boot.accounts : boot.accounts.filter((a) => !defaults.includes(a));
    for (const u of cfg.users.filter(isObject)) {
      if (typeof u.name !== 'string') continue;
      const groups = strings(u.groups);
      boot.accounts = boot.accounts.filter((a) => a.name !== u.name);
      boot.accounts.push({
        name: u.name,
        password: plainPassword(u.plain_text_passwd) ?? plainPassword(u.passwd),
        passwordLogin: u.lock_passwd !== true,
        authorizedKeys: strings(u.ssh_authorized_keys),
        sudo: sudoPolicy(u.sudo, groups),
        groups,
      });
    }
  }
  const first = boot.accounts.find((a) => defaults.includes(a)) ?? boot.accounts[0];
  if (first && typeof cfg.password === 'string') first.password = cfg.password;
  if (first && cfg.ssh_authorized_keys) first.authorizedKeys = [...(first.authorizedKeys ?? []), ...strings(cfg.ssh_authorized_keys)];
  const chpasswd = isObject(cfg.chpasswd) ? cfg.chpasswd : {};
  const pairs = typeof chpasswd.list === 'string' ? chpasswd.list.split('\n') : strings(chpasswd.list);
  for (const pair of pairs) setPassword(boot, pair.slice(0, pair.indexOf(':')), pair.slice(pair.indexOf(':') + 1));
  for (const u of Array.isArray(chpasswd.users) ? chpasswd.users.filter(isObject) : []) {
    if (typeof u.name === 'string' && (u.type === undefined || u.type === 'text')) setPassword(boot, u.name, String(u.password ?? ''));
  }
  if (cfg.ssh_pwauth === false || cfg.ssh_pwauth === 'false' || cfg.ssh_pwauth === 'no') {
    for (const a of boot.accounts) a.passwordLogin = false;
  }
  if (typeof cfg.hostname === 'string') boot.hostname = cfg.hostname;
}

function setPassword(boot: BootConfig, name: string, password: string): void {
  const account = boot.accounts.find((a) => a.name === name);
  if (account && plainPassword(password)) account.password = password;
}

/** `echo 'user:pw' | chpasswd` and `echo "user:pw" | sudo chpasswd` in a user_data script. */
function applyScript(script: string, boot: BootConfig): void {
  for (const m of script.matchAll(/echo\s+(-e\s+)?(["']?)([\w.-]+):([^\s"']+)\2\s*\|\s*(?:sudo\s+)?chpasswd/g)) setPassword(boot, m[3], m[4]);
}

export function bootConfig(props: Record<string, unknown>, defaultUsers: SshUser[]): BootConfig {
  const defaults: AccountSpec[] = defaultUsers.map((u) => ({
    name: u.username,
    password: u.password,
    passwordLogin: true,
    authorizedKeys: [...(u.authorizedKeys ?? [])],
    sudo: u.sudo ?? 'nopasswd',
  }));
  const boot: BootConfig = { accounts: [...defaults] };
  // Nova's admin_pass is what cloud-init sets for the default user when user_data does not.
  if (typeof props.admin_pass === 'string' && boot.accounts[0]) boot.accounts[0].password = props.admin_pass;
  if (typeof props.user_data === 'string') {
    for (const doc of documents(props.user_data)) {
      if (/^#cloud-config/.test(doc)) {
        try {
          const cfg: unknown = YAML.parse(doc);
          if (isObject(cfg)) applyCloudConfig(cfg, boot, defaults);
        } catch {
          // cloud-init ignores a broken document; so do we.
        }
      } else if (doc.startsWith('#!')) applyScript(doc, boot);
    }
  }
  return boot;
}
