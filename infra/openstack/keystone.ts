/**
 * Keystone v3 password authentication: a project-scoped token (or, with a
 * trust id, a trust-scoped one: the trustor's project and the trust's roles
 * only) and the service catalog, cached until shortly before it expires or
 * until a 401 says it is stale (the caller then asks for a fresh one).
 *
 * Both the auth_url and every endpoint the catalog names go through the
 * outbound policy (common/outbound.ts): a hostile Keystone can answer a
 * catalog pointing anywhere, and the token would follow.
 */
import { MAX_BODY_SETTING, outboundSettings, OutboundRefused, outboundUrlProblem, showUrl, vimEndpointProblem } from '../../common/outbound';
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
  /** Scope the token to this trust instead of `project` (the login is the trust's trustee). */
  trustId?: string;
}

interface CatalogEntry { type: string; endpoints: { interface: string; region?: string; region_id?: string; url: string }[] }
interface Token { value: string; expiresAt: number; catalog: CatalogEntry[]; projectId?: string; userId?: string }

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
    const why = outboundUrlProblem(String(ep.url), { purpose: `${type} endpoint`, base: true });
    if (why) throw new OutboundRefused(`Keystone at ${showUrl(this.creds.authUrl)} names in its catalog the ${type} endpoint, which is not called: ${why}`);
    return String(ep.url).replace(/\/$/, '');
  }

  private async authenticate(): Promise<Token> {
    const c = this.creds;
    const refused = vimEndpointProblem(c.authUrl); // before the password goes anywhere
    if (refused) throw new OutboundRefused(refused);
    const url = `${c.authUrl.replace(/\/$/, '')}/auth/tokens`;
    const r = await request('POST', url, {
      ca: c.ca, purpose: 'VIM auth_url',
      maxBytes: outboundSettings().maxBody.keystone, maxBytesSetting: MAX_BODY_SETTING.keystone,
      body: {
        auth: {
          identity: {
            methods: ['password'],
            password: { user: { name: c.username, password: c.password, domain: { name: c.userDomain ?? 'Default' } } },
          },
          scope: c.trustId ? { 'OS-TRUST:trust': { id: c.trustId } } : { project: { name: c.project, domain: { name: c.projectDomain ?? 'Default' } } },
        },
      },
    });
    if (r.status !== 201 && r.status !== 200) throw new OpenStackHttpError(r.status, 'POST', showUrl(url), errorDetail(r, [c.password]));
    const value = String(r.headers['x-subject-token'] ?? '');
    const tok = (r.body as { token?: { expires_at?: string; catalog?: CatalogEntry[]; project?: { id?: string }; user?: { id?: string } } })?.token;
    if (!value || !tok) throw new Error(`Keystone at ${showUrl(c.authUrl)} returned no token`);
    return { value, expiresAt: tok.expires_at ? Date.parse(tok.expires_at) : Date.now() + 3600_000, catalog: tok.catalog ?? [], projectId: tok.project?.id, userId: tok.user?.id };
  }
}
