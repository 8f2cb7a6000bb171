/**
 * The simulator's own Keystone client, as keystonemiddleware's: it logs in
 * as a service user (lazily, so Keystone may come up after the simulator)
 * and validates callers' tokens with GET /v3/auth/tokens (X-Subject-Token).
 */
import { contextFromToken, type RequestContext } from './context';
import { TokenCache } from './token-cache';

export interface AuthSettings {
  /** Keystone v3 URL, e.g. http://127.0.0.1:5000/v3 */
  authUrl: string;
  username: string;
  password: string;
  projectName: string;
  userDomainName?: string;
  projectDomainName?: string;
  /** Longest time a validated token is trusted without asking again. */
  cacheTtlMs?: number;
  cacheMax?: number;
}

/** Keystone could not be asked (down, or the service user cannot log in): the caller answers 503. */
export class KeystoneUnavailable extends Error {}

const TIMEOUT_MS = 15_000;
/** Fernet tokens are ~200 characters, JWS ones ~800. */
const MAX_TOKEN_LENGTH = 8192;

export class KeystoneAuth {
  private serviceToken: Promise<string> | undefined;
  private readonly cache: TokenCache;
  private readonly listeners: (() => void)[] = [];
  readonly authUrl: string;

  constructor(private readonly settings: AuthSettings) {
    this.authUrl = settings.authUrl.replace(/\/+$/, '');
    this.cache = new TokenCache(settings.cacheTtlMs ?? 5 * 60_000, settings.cacheMax ?? 2000);
  }

  /** The caller's context, or undefined when Keystone says the token is not valid. */
  async validate(token: string): Promise<RequestContext | undefined> {
    if (token.length > MAX_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(token)) return undefined; // no Keystone token looks like that
    const cached = this.cache.get(token);
    if (cached) return cached;
    for (let attempt = 0; ; attempt++) {
      const own = await this.login();
      const res = await this.fetch(`${this.authUrl}/auth/tokens?nocatalog`, { headers: { 'X-Auth-Token': own, 'X-Subject-Token': token } });
      if (res.status === 401 && attempt === 0) {
        this.serviceToken = undefined; // our own token expired or was revoked: log in again once
        continue;
      }
      // 404: not a valid token; any other 4xx: not one Keystone could read (malformed, too long).
      if (res.status >= 400 && res.status < 500) return undefined;
      if (res.status !== 200) throw new KeystoneUnavailable(`Keystone answered token validation with ${res.status}`);
      const ctx = contextFromToken(await res.json());
      if (ctx) this.cache.set(token, ctx);
      return ctx;
    }
  }

  /** Called once the service user first logs in (the seed learns the admin project then). */
  onLogin(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** A project's id by name (the service user has the admin role). */
  async projectId(name: string): Promise<string | undefined> {
    const res = await this.fetch(`${this.authUrl}/projects?name=${encodeURIComponent(name)}`, { headers: { 'X-Auth-Token': await this.login() } });
    if (res.status !== 200) return undefined;
    const body = (await res.json()) as { projects?: { id: string }[] };
    return body.projects?.[0]?.id;
  }

  private login(): Promise<string> {
    this.serviceToken ??= this.passwordLogin().catch((err: unknown) => {
      this.serviceToken = undefined;
      throw err;
    });
    return this.serviceToken;
  }

  private async passwordLogin(): Promise<string> {
    const s = this.settings;
    const body = {
      auth: {
        identity: { methods: ['password'], password: { user: { name: s.username, password: s.password, domain: { name: s.userDomainName ?? 'Default' } } } },
        scope: { project: { name: s.projectName, domain: { name: s.projectDomainName ?? 'Default' } } },
      },
    };
    const res = await this.fetch(`${this.authUrl}/auth/tokens?nocatalog`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const token = res.headers.get('x-subject-token');
    if (res.status !== 201 || !token) {
      throw new KeystoneUnavailable(`service user ${s.username} cannot log in to ${this.authUrl}: ${res.status}`);
    }
    for (const listener of this.listeners.splice(0)) listener();
    return token;
  }

  /**
   * One request to Keystone; a connection the server closed while idle (gunicorn
   * keeps them 2 s, fetch reuses them longer) is retried once on a new one.
   */
  private async fetch(url: string, init: RequestInit): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
      } catch (err) {
        if (attempt === 0 && (err as Error).name !== 'TimeoutError') continue;
        throw new KeystoneUnavailable(`Keystone at ${this.authUrl} unreachable: ${(err as Error).message}`);
      }
    }
  }
}
