/** Minimal Keystone v3 REST client (fetch) for the idempotent setup in entities.ts. */

export class KeystoneError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * fetch, again after 1, 2, 4 and 8 s when the connection itself failed (fetch's TypeError: refused or reset,
 * as a loaded Keystone's gunicorn does at times). Every call here is safe to repeat: token issues, lookups,
 * PUTs, and creates whose 409 ensure() reads as "already there".
 */
export async function fetchRetryingConnection(url: string, init: () => RequestInit, delaysMs = [1000, 2000, 4000, 8000]): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetch(url, init());
    } catch (e) {
      if ((e as Error)?.name !== 'TypeError' || attempt >= delaysMs.length) throw e; // by name: jest's realm has another TypeError
      await new Promise((r) => setTimeout(r, delaysMs[attempt]));
    }
  }
}

export interface PasswordAuth {
  username: string;
  password: string;
  userDomain?: { id: string } | { name: string };
  /** project name in domain `default`; omitted = unscoped token */
  project?: string;
}

/** POST /v3/auth/tokens; returns the token or throws KeystoneError (401 = bad credentials). */
export async function issueToken(authUrl: string, a: PasswordAuth): Promise<string> {
  const auth = {
    identity: {
      methods: ['password'],
      password: { user: { name: a.username, domain: a.userDomain ?? { id: 'default' }, password: a.password } },
    },
    ...(a.project ? { scope: { project: { name: a.project, domain: { id: 'default' } } } } : {}),
  };
  const r = await fetchRetryingConnection(`${authUrl}/auth/tokens?nocatalog`, () => ({
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ auth }),
    signal: AbortSignal.timeout(30_000),
  }));
  await r.arrayBuffer();
  const tok = r.headers.get('x-subject-token');
  if (r.status !== 201 || !tok) throw new KeystoneError(`token for ${a.username}: HTTP ${r.status}`, r.status);
  return tok;
}

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export class KeystoneAdmin {
  private constructor(
    readonly authUrl: string,
    private readonly token: string,
  ) {}

  static async login(authUrl: string, username: string, password: string): Promise<KeystoneAdmin> {
    return new KeystoneAdmin(authUrl, await issueToken(authUrl, { username, password, project: 'admin' }));
  }

  async req(method: string, path: string, body?: unknown, okStatuses: number[] = []): Promise<Json> {
    const r = await fetchRetryingConnection(`${this.authUrl}${path}`, () => ({
      method,
      headers: { 'X-Auth-Token': this.token, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(30_000),
    }));
    const text = await r.text();
    if (!r.ok && !okStatuses.includes(r.status)) {
      // bodies of these calls never carry secrets back, but requests may: do not echo the request
      throw new KeystoneError(`${method} ${path}: HTTP ${r.status} ${text.slice(0, 300)}`, r.status);
    }
    return text ? (JSON.parse(text) as Json) : {};
  }

  /** GET a collection, e.g. list('projects', {name: 'service'}). */
  async list(kind: string, query: Record<string, string> = {}): Promise<Json[]> {
    const qs = new URLSearchParams(query).toString();
    const j = await this.req('GET', `/${kind}${qs ? `?${qs}` : ''}`);
    return j[kind] as Json[];
  }

  /** Finds one entity by query or creates it; returns its id. */
  async ensure(kind: string, single: string, query: Record<string, string>, create: Json): Promise<string> {
    const found = await this.list(kind, query);
    if (found.length) return found[0].id as string;
    try {
      const j = await this.req('POST', `/${kind}`, { [single]: create });
      return j[single].id as string;
    } catch (e) {
      // 409: created concurrently (two starts racing); look it up again
      if (e instanceof KeystoneError && e.status === 409) return (await this.list(kind, query))[0].id as string;
      throw e;
    }
  }

  /** PUT a role assignment (idempotent in Keystone). */
  async grant(scope: 'projects' | 'domains', scopeId: string, userId: string, roleId: string): Promise<void> {
    await this.req('PUT', `/${scope}/${scopeId}/users/${userId}/roles/${roleId}`);
  }
}
