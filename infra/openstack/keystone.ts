/**
 * Keystone v3 password authentication: a project-scoped token and the service
 * catalog, cached until shortly before it expires or until a 401 says it is
 * stale (the caller then asks for a fresh one).
 */
import { request, errorDetail, OpenStackHttpError } from './http';

export interface KeystoneCredentials {
  authUrl: string; // .../v3
  username: string;
  password: string;
  project: string;
  userDomain?: string;
  projectDomain?: string;
  region?: string;
  ca?: string;
}

interface CatalogEntry { type: string; endpoints: { interface: string; region?: string; region_id?: string; url: string }[] }
interface Token { value: string; expiresAt: number; catalog: CatalogEntry[] }

const EXPIRY_MARGIN_MS = 60_000;

export class KeystoneSession {
  private token?: Token;
  private pending?: Promise<Token>;

  constructor(private readonly creds: KeystoneCredentials) {}

  async getToken(forceRefresh = false): Promise<Token> {
    if (!forceRefresh && this.token && this.token.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return this.token;
    this.pending ??= this.authenticate().finally(() => (this.pending = undefined));
    this.token = await this.pending;
    return this.token;
  }

  /** Public endpoint of a service type ('orchestration') in the configured region. */
  async endpoint(type: string): Promise<string> {
    const t = await this.getToken();
    const svc = t.catalog.find((c) => c.type === type);
    const region = this.creds.region;
    const ep = svc?.endpoints.find((e) => e.interface === 'public' && (!region || e.region_id === region || e.region === region));
    if (!ep) throw new Error(`Keystone catalog has no public ${type} endpoint${region ? ` in region ${region}` : ''}`);
    return ep.url.replace(/\/$/, '');
  }

  private async authenticate(): Promise<Token> {
    const c = this.creds;
    const url = `${c.authUrl.replace(/\/$/, '')}/auth/tokens`;
    const r = await request('POST', url, {
      ca: c.ca,
      body: {
        auth: {
          identity: {
            methods: ['password'],
            password: { user: { name: c.username, password: c.password, domain: { name: c.userDomain ?? 'Default' } } },
          },
          scope: { project: { name: c.project, domain: { name: c.projectDomain ?? 'Default' } } },
        },
      },
    });
    if (r.status !== 201 && r.status !== 200) throw new OpenStackHttpError(r.status, 'POST', url, errorDetail(r));
    const value = String(r.headers['x-subject-token'] ?? '');
    const tok = (r.body as { token?: { expires_at?: string; catalog?: CatalogEntry[] } })?.token;
    if (!value || !tok) throw new Error(`Keystone at ${c.authUrl} returned no token`);
    return { value, expiresAt: tok.expires_at ? Date.parse(tok.expires_at) : Date.now() + 3600_000, catalog: tok.catalog ?? [] };
  }
}
