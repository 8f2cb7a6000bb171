/**
 * Login accounts of a server, the way cloud-init would set them up from its
 * user_data: `#cloud-config` (password + chpasswd/ssh_pwauth, users with
 * plain_text_passwd/passwd, sudo, groups, ssh_authorized_keys), a shell
 * script doing `echo user:pw | chpasswd`, MIME multipart of those (as Heat
 * wraps them), or base64 of any of them. Without them Nova's adminPass, else
 * the image's default users (simulator option sshUsers) apply. Crypt hashes (`passwd: $6$...`,
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

/** One document of user_data and how cloud-init would treat it. */
interface Doc {
  kind: 'cloud-config' | 'script' | 'ignored';
  text: string;
}

/** By content: what a part without a telling MIME type is. */
function sniff(text: string): Doc {
  if (/^#cloud-config/.test(text)) return { kind: 'cloud-config', text };
  if (text.startsWith('#!')) return { kind: 'script', text };
  return { kind: 'ignored', text };
}

/**
 * MIME part types as cloud-init dispatches them. Heat's HEAT_CFNTOOLS format
 * puts the template's user_data in the x-cfninitdata part "cfn-userdata",
 * which heat-cfntools (loguserdata.py) runs when it is a script; Heat's own
 * parts (its cloud-config, boothook, part handler, metadata) change no account.
 */
function partDoc(headers: string, body: string): Doc[] {
  const type = /Content-Type:\s*([\w/.+-]+)/i.exec(headers)?.[1]?.toLowerCase() ?? '';
  const filename = /filename="?([^";\r\n]+)"?/i.exec(headers)?.[1] ?? '';
  if (type.startsWith('multipart/')) return documents(`${headers}\n\n${body}`);
  switch (type) {
    case 'text/cloud-config':
      return [{ kind: 'cloud-config', text: body }];
    case 'text/x-shellscript':
    case 'text/cloud-boothook':
      return [{ kind: 'script', text: body }];
    case 'text/x-cfninitdata':
      return filename === 'cfn-userdata' && body.startsWith('#!') ? [{ kind: 'script', text: body }] : [];
    case 'text/x-include-url':
    case 'text/part-handler':
      return [];
    default:
      return documents(body);
  }
}

/** The documents of (decoded) user_data: MIME parts, base64 of a document, or the text itself. */
function documents(userData: string): Doc[] {
  const text = userData.trim();
  const boundary = /boundary="?([^"\s;]+)"?/i.exec(text);
  if (/^(MIME-Version|Content-Type):/im.test(text) && boundary) {
    return text.split(`--${boundary[1]}`).slice(1).flatMap((part) => {
      const split = part.search(/\r?\n\r?\n/);
      if (split < 0) return [];
      const headers = part.slice(0, split);
      let body = part.slice(split).trim();
      if (/Content-Transfer-Encoding:\s*base64/i.test(headers)) body = Buffer.from(body, 'base64').toString('utf8');
      return body ? partDoc(headers, body) : [];
    });
  }
  if (/^[A-Za-z0-9+/=\s]+$/.test(text) && text.length >= 16) {
    const decoded = Buffer.from(text, 'base64').toString('utf8');
    if (decoded.startsWith('#') || decoded.startsWith('Content-Type') || decoded.startsWith('MIME')) return documents(decoded);
  }
  return [sniff(text)];
}

/** Applies one `#cloud-config` document. */
function applyCloudConfig(cfg: CloudConfig, boot: BootConfig, defaults: AccountSpec[]): void {
  // `user:` renames the image's default user (as Heat's instance_user does).
  const rename = typeof cfg.user === 'string' ? cfg.user : isObject(cfg.user) && typeof cfg.user.name === 'string' ? cfg.user.name : undefined;
  const defaultUser = boot.accounts.find((a) => defaults.includes(a));
  if (rename && defaultUser) defaultUser.name = rename;
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

/** What cloud-init sets up from a Nova server: its user_data (base64, as Nova keeps it) and adminPass. */
export interface BootInput {
  userData: string | null;
  adminPass: string | null;
}

export function bootConfig(input: BootInput, defaultUsers: SshUser[]): BootConfig {
  const defaults: AccountSpec[] = defaultUsers.map((u) => ({
    name: u.username,
    password: u.password,
    passwordLogin: true,
    authorizedKeys: [...(u.authorizedKeys ?? [])],
    sudo: u.sudo ?? 'nopasswd',
  }));
  const boot: BootConfig = { accounts: [...defaults] };
  // Nova's adminPass (when one was given) is what cloud-init sets for the default user unless user_data says otherwise.
  if (input.adminPass && boot.accounts[0]) boot.accounts[0].password = input.adminPass;
  if (input.userData) {
    for (const doc of documents(Buffer.from(input.userData, 'base64').toString('utf8'))) {
      if (doc.kind === 'cloud-config') {
        try {
          const cfg: unknown = YAML.parse(doc.text);
          if (isObject(cfg)) applyCloudConfig(cfg, boot, defaults);
        } catch {
          // cloud-init ignores a broken document; so do we.
        }
      } else if (doc.kind === 'script') applyScript(doc.text, boot);
    }
  }
  return boot;
}
