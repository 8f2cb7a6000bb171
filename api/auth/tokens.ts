/**
 * Keystone token validation the way keystonemiddleware does it: the API's
 * own service token in X-Auth-Token, the caller's in X-Subject-Token,
 * `GET /v3/auth/tokens`; 404 means the caller's token is invalid. Valid
 * tokens are cached (by hash) until they expire, for at most the configured
 * TTL, so a revoked token stops working within that TTL. Invalid ones are
 * cached too, briefly, as keystonemiddleware does: the same bogus token
 * sent again costs no Keystone round trip.
 */
import crypto from 'node:crypto';
import type { Config } from '../../common/config';
import { request } from '../../infra/openstack/http';
import type { AccessRule } from './access-rules';

/** Who is calling, from their token. */
export interface Caller {
  userId: string;
  userName: string;
  projectId: string;
  projectName: string;
  roles: string[];
  isAdmin: boolean;
  /** Set when the token comes from an application credential with access rules: only what they name (access-rules.ts). */
  accessRules?: AccessRule[];
}

export class IdentityUnavailable extends Error {}

const MAX_CACHED = 10_000;
const EXPIRY_MARGIN_MS = 30_000;
/** Keystone tokens are printable ASCII (fernet: ~200 characters); anything else is not worth a round trip. */
const PLAUSIBLE_TOKEN = /^[\x21-\x7e]{1,8192}$/;

interface TokenBody {
  expires_at?: string;
  user?: { id?: string; name?: string };
  project?: { id?: string; name?: string; domain?: { id?: string; name?: string } };
  roles?: { name?: string }[];
  application_credential?: { access_rules?: { service?: string; method?: string; path?: string }[] };
}

export class TokenValidator {
  private readonly cache = new Map<string, { caller: Caller; until: number }>();
  private readonly invalid = new Map<string, number>();
  private service?: { token: string; expiresAt: number };
  private pendingLogin?: Promise<string>;

  constructor(private readonly cfg: Config['identity']) {}

  get authUrl(): string {
    return this.cfg.authUrl.replace(/\/+$/, '');
  }

  /** The caller behind a token, or null when Keystone says it is not valid (or it is not project-scoped). */
  async validate(token: string): Promise<Caller | null> {
    if (!PLAUSIBLE_TOKEN.test(token)) return null;
    const key = keyOf(token);
    const known = this.known(key);
    if (known !== undefined) return known;
    for (let attempt = 0; attempt < 2; attempt++) {
      const serviceToken = await this.serviceToken(attempt > 0);
      // the header says this service enforces access rules (access-rules.ts), as keystonemiddleware's does: Keystone then validates such tokens
      const r = await this.call('GET', `${this.authUrl}/auth/tokens?nocatalog`, { 'x-auth-token': serviceToken, 'x-subject-token': token, 'openstack-identity-access-rules': '1' });
      if (r.status === 401 && attempt === 0) continue; // our own token went stale
      if (r.status === 404) return this.refused(key);
      if (r.status !== 200) throw new IdentityUnavailable(`Keystone answered ${r.status} to a token validation`);
      const t = (r.body as { token?: TokenBody } | undefined)?.token;
      const caller = callerOf(t, this.cfg);
      if (!caller) return this.refused(key);
      const expires = Date.parse(t?.expires_at ?? '') || Date.now();
      this.remember(key, caller, Math.min(expires, Date.now() + this.cfg.tokenCacheTtlMs));
      return caller;
    }
    throw new IdentityUnavailable('the API\'s service user cannot validate tokens (its own token is refused)');
  }

  /** Whether Keystone knows the project (Magnum checks a quota's project), asked as the API's service user. */
  async projectExists(projectId: string): Promise<boolean> {
    if (!/^[\w-]{1,64}$/.test(projectId)) return false;
    for (let attempt = 0; attempt < 2; attempt++) {
      const r = await this.call('GET', `${this.authUrl}/projects/${projectId}`, { 'x-auth-token': await this.serviceToken(attempt > 0) });
      if (r.status === 401 && attempt === 0) continue;
      if (r.status === 200) return true;
      if (r.status === 404) return false;
      throw new IdentityUnavailable(`Keystone answered ${r.status} to a project lookup`);
    }
    throw new IdentityUnavailable('the API\'s service user cannot look up projects (its own token is refused)');
  }

  /** What the caches say of a token without asking Keystone: its caller, null (refused lately), undefined (not known). */
  cached(token: string): Caller | null | undefined {
    return PLAUSIBLE_TOKEN.test(token) ? this.known(keyOf(token)) : null;
  }

  private known(key: string): Caller | null | undefined {
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.caller;
    this.cache.delete(key);
    const refusedUntil = this.invalid.get(key);
    if (refusedUntil !== undefined && refusedUntil > now) return null;
    this.invalid.delete(key);
    return undefined;
  }

  private refused(key: string): null {
    if (this.invalid.size >= MAX_CACHED) this.invalid.delete(this.invalid.keys().next().value as string);
    this.invalid.set(key, Date.now() + this.cfg.invalidTokenCacheMs);
    return null;
  }

  private remember(key: string, caller: Caller, until: number): void {
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, { caller, until });
  }

  private async serviceToken(fresh: boolean): Promise<string> {
    if (!fresh && this.service && this.service.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return this.service.token;
    this.pendingLogin ??= this.login().finally(() => { this.pendingLogin = undefined; });
    return this.pendingLogin;
  }

  private async login(): Promise<string> {
    const c = this.cfg;
    const r = await this.call('POST', `${this.authUrl}/auth/tokens?nocatalog`, {}, {
      auth: {
        identity: { methods: ['password'], password: { user: { name: c.serviceUser, password: c.servicePassword, domain: { name: c.serviceDomain } } } },
        scope: { project: { name: c.serviceProject, domain: { name: c.serviceDomain } } },
      },
    });
    const token = String(r.headers['x-subject-token'] ?? '');
    if (r.status !== 201 || !token) throw new IdentityUnavailable(`the API's service user ${c.serviceUser} cannot log in to Keystone (${r.status})`);
    const expires = Date.parse((r.body as { token?: TokenBody } | undefined)?.token?.expires_at ?? '') || Date.now() + 3600_000;
    this.service = { token, expiresAt: expires };
    return token;
  }

  private async call(method: string, url: string, headers: Record<string, string>, body?: unknown) {
    try {
      return await request(method, url, { headers, body, timeoutMs: 10_000 });
    } catch (e) {
      throw new IdentityUnavailable(`Keystone at ${this.authUrl} is unreachable: ${(e as Error).message}`);
    }
  }
}

const keyOf = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/**
 * The caller of a project-scoped token. The admin role makes a cloud admin
 * (every project's resources, all_projects, admin-only rules) only in the
 * admin project (AUTH_ADMIN_PROJECT); an admin of any other project is a
 * member of that project and nothing more, as Keystone's is_admin_project
 * meant it to be.
 */
function callerOf(t: TokenBody | undefined, cfg: Pick<Config['identity'], 'adminProject' | 'adminProjectDomain'>): Caller | null {
  if (!t?.project?.id || !t.user?.id) return null; // unscoped and domain-scoped tokens own no project
  let roles = (t.roles ?? []).map((r) => String(r.name ?? '')).filter(Boolean);
  const domain = t.project.domain;
  const inAdminProject = t.project.name === cfg.adminProject && (domain?.name === cfg.adminProjectDomain || domain?.id === cfg.adminProjectDomain);
  if (roles.includes('admin') && !inAdminProject) roles = [...new Set([...roles.filter((r) => r !== 'admin'), 'member'])];
  const rules = t.application_credential?.access_rules;
  return {
    userId: t.user.id, userName: String(t.user.name ?? ''), projectId: t.project.id, projectName: String(t.project.name ?? ''),
    roles, isAdmin: roles.includes('admin'),
    ...(Array.isArray(rules) ? { accessRules: rules.map((r) => ({ service: String(r.service ?? ''), method: String(r.method ?? ''), path: String(r.path ?? '') })) } : {}),
  };
}
