/**
 * Shared helpers for the VIM simulator tests: the embedded cloud's real
 * Keystone and Heat (from the environment), an in-process simulator with its
 * own data dir and a service user of its own, a Keystone region of its own
 * pointing at that simulator (so Heat calls it), and small REST clients.
 *
 * The cloud: TEST_KEYSTONE_URL (Keystone v3 URL, e.g. http://127.0.0.1:25357/v3)
 * and TEST_HEAT_URL when set, else the harness state file (PRODUCT_STATE:
 * keystoneUrl, heatUrl, adminPassword); TEST_ADMIN_USER / TEST_ADMIN_PASSWORD /
 * TEST_ADMIN_PROJECT (admin / the harness's / admin). Without TEST_HEAT_URL Heat is
 * found in the catalog (orchestration).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startVimSim, type AuthSettings, type VimSim, type VimSimOptions } from '@nfv-orchestrator/vimsim/server';
import { fetchAgainIfIdleClosed } from './fetch-again';

export interface EmbeddedCloud {
  keystoneUrl: string;
  admin: { username: string; password: string; project: string };
  heatUrl?: string;
}

/** Keystone and Heat of the harness, when it runs (its state file). */
function harnessCloud(): { keystoneUrl?: string; heatUrl?: string; adminPassword?: string } {
  const file = process.env.PRODUCT_STATE;
  if (!file || !fs.existsSync(file)) return {};
  const state = JSON.parse(fs.readFileSync(file, 'utf8')) as { keystoneUrl?: string; heatUrl?: string; adminPassword?: string };
  return { keystoneUrl: state.keystoneUrl, heatUrl: state.heatUrl, adminPassword: state.adminPassword };
}

export function embeddedCloud(): EmbeddedCloud {
  const harness: ReturnType<typeof harnessCloud> = process.env.TEST_KEYSTONE_URL ? {} : harnessCloud();
  const keystoneUrl = process.env.TEST_KEYSTONE_URL ?? harness.keystoneUrl;
  if (!keystoneUrl) throw new Error('no Keystone: set TEST_KEYSTONE_URL or run under the harness (the vimsim tests need a real Keystone and Heat)');
  return {
    keystoneUrl: keystoneUrl.replace(/\/+$/, ''),
    admin: {
      username: process.env.TEST_ADMIN_USER ?? 'admin',
      password: process.env.TEST_ADMIN_PASSWORD ?? harness.adminPassword ?? '',
      project: process.env.TEST_ADMIN_PROJECT ?? 'admin',
    },
    heatUrl: process.env.TEST_HEAT_URL ?? harness.heatUrl,
  };
}

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function http<T = any>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult<T>> {
  const raw = typeof body === 'string' || body instanceof Buffer;
  const res = await fetchAgainIfIdleClosed(url, {
    method,
    headers: { ...(body !== undefined && !raw ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : raw ? (body as string) : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // keep raw text
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export function passwordAuth(user: string, password: string, project: string) {
  return {
    auth: {
      identity: { methods: ['password'], password: { user: { name: user, password, domain: { name: 'Default' } } } },
      scope: { project: { name: project, domain: { name: 'Default' } } },
    },
  };
}

export interface Session {
  token: string;
  projectId: string;
  userId: string;
  catalog: any[];
}

export async function login(cloud: EmbeddedCloud, user = cloud.admin.username, password = cloud.admin.password, project = cloud.admin.project): Promise<Session> {
  const res = await http('POST', `${cloud.keystoneUrl}/auth/tokens`, passwordAuth(user, password, project));
  if (res.status !== 201) throw new Error(`Keystone login of ${user} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.headers.get('x-subject-token')!, projectId: res.body.token.project.id, userId: res.body.token.user.id, catalog: res.body.token.catalog };
}

const SERVICE_USER = 'vimsim-test';
const SERVICE_PASSWORD = 'vimsim-test-password';

/** Keystone admin calls. */
async function ks(cloud: EmbeddedCloud, token: string, method: string, p: string, body?: unknown): Promise<HttpResult> {
  return http(method, `${cloud.keystoneUrl}${p}`, body, { 'X-Auth-Token': token });
}

async function idOf(cloud: EmbeddedCloud, token: string, collection: string, name: string): Promise<string | undefined> {
  return (await ks(cloud, token, 'GET', `/${collection}?name=${encodeURIComponent(name)}`)).body[collection]?.[0]?.id;
}

/**
 * The id of the named project, user or role, created when missing. Test files running side by side
 * may create the same one at once: the loser's 409 is answered by reading the winner's.
 */
async function ensureNamed(cloud: EmbeddedCloud, token: string, collection: 'projects' | 'users' | 'roles', body: Record<string, unknown>): Promise<string> {
  const name = String(body.name);
  const existing = await idOf(cloud, token, collection, name);
  if (existing) return existing;
  const one = collection.slice(0, -1);
  const res = await ks(cloud, token, 'POST', `/${collection}`, { [one]: body });
  if (res.status === 201) return res.body[one].id;
  const raced = res.status === 409 ? await idOf(cloud, token, collection, name) : undefined;
  if (!raced) throw new Error(`Keystone ${collection} ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return raced;
}

/** A service user of the tests' own (admin + service on project service), as the launcher makes `vimsim`. */
export async function ensureServiceUser(cloud: EmbeddedCloud): Promise<AuthSettings> {
  const admin = await login(cloud);
  const project = await ensureNamed(cloud, admin.token, 'projects', { name: 'service', domain_id: 'default' });
  const user = await ensureNamed(cloud, admin.token, 'users', { name: SERVICE_USER, domain_id: 'default', password: SERVICE_PASSWORD });
  for (const role of ['admin', 'service']) {
    const roleId = await ensureNamed(cloud, admin.token, 'roles', { name: role });
    await ks(cloud, admin.token, 'PUT', `/projects/${project}/users/${user}/roles/${roleId}`);
  }
  return { authUrl: cloud.keystoneUrl, username: SERVICE_USER, password: SERVICE_PASSWORD, projectName: 'service' };
}

/** An ordinary user (role member) of a project of its own, for what non-admins may and may not see. */
export async function ensureMember(cloud: EmbeddedCloud): Promise<Session> {
  const admin = await login(cloud);
  const project = await ensureNamed(cloud, admin.token, 'projects', { name: 'vimsim-demo', domain_id: 'default' });
  const user = await ensureNamed(cloud, admin.token, 'users', { name: 'vimsim-member', domain_id: 'default', password: 'member-password' });
  const role = await ensureNamed(cloud, admin.token, 'roles', { name: 'member' });
  await ks(cloud, admin.token, 'PUT', `/projects/${project}/users/${user}/roles/${role}`);
  return login(cloud, 'vimsim-member', 'member-password', 'vimsim-demo');
}

/** The catalog entries the launcher registers for the simulator, by service type. */
export const CATALOG: Record<string, { name: string; path: string }> = {
  compute: { name: 'nova', path: '/compute/v2.1' },
  network: { name: 'neutron', path: '/network' },
  image: { name: 'glance', path: '/image' },
  volumev3: { name: 'cinderv3', path: '/volume/v3/$(project_id)s' },
};

/**
 * A Keystone region of the caller's own: RegionOne's catalog with the
 * compute/network/image/volumev3 endpoints (public, internal, admin) a
 * simulator's. Heat calls it for the stacks created with
 * `X-Region-Name: <region>` (HeatTestClient.connect), and nothing in the
 * shared catalog changes, so other test files running meanwhile keep their
 * cloud. Returns the region and a function removing it.
 */
export async function regionFor(cloud: EmbeddedCloud, simUrl: string): Promise<{ region: string; remove: () => Promise<void> }> {
  const admin = await login(cloud);
  const region = `sim-${Math.random().toString(36).slice(2, 10)}`;
  const made = await ks(cloud, admin.token, 'POST', '/regions', { region: { id: region, description: `in-process simulator ${simUrl}` } });
  if (made.status !== 201) throw new Error(`region ${region}: ${made.status} ${JSON.stringify(made.body)}`);
  const services: any[] = (await ks(cloud, admin.token, 'GET', '/services')).body.services ?? [];
  const typeOf = new Map(services.map((x) => [x.id, x.type as string]));
  const regionOne: any[] = ((await ks(cloud, admin.token, 'GET', '/endpoints')).body.endpoints ?? []).filter((e: any) => e.region_id === 'RegionOne');
  const endpoints: string[] = [];
  const add = async (serviceId: string, iface: string, url: string) => {
    const ep = await ks(cloud, admin.token, 'POST', '/endpoints', { endpoint: { service_id: serviceId, interface: iface, region_id: region, url } });
    if (ep.status !== 201) throw new Error(`endpoint ${typeOf.get(serviceId)} ${iface} in ${region}: ${ep.status} ${JSON.stringify(ep.body)}`);
    endpoints.push(ep.body.endpoint.id);
  };
  // every other service (identity, orchestration, ...) as in RegionOne
  for (const e of regionOne) if (!(typeOf.get(e.service_id)! in CATALOG)) await add(e.service_id, e.interface, e.url);
  for (const [type, { name, path: p }] of Object.entries(CATALOG)) {
    let service = services.find((x) => x.type === type)?.id;
    if (!service) service = (await ks(cloud, admin.token, 'POST', '/services', { service: { type, name } })).body.service.id;
    for (const iface of ['public', 'internal', 'admin']) await add(service, iface, `${simUrl}${p}`);
  }
  return {
    region,
    async remove() {
      const again = await login(cloud);
      for (const id of endpoints) await ks(cloud, again.token, 'DELETE', `/endpoints/${id}`);
      await ks(cloud, again.token, 'DELETE', `/regions/${region}`);
    },
  };
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'vimsim-test-'));
}

export interface TestSim extends VimSim {
  dataDir: string;
}

/** Starts a simulator on an ephemeral port with the tests' service user; a data dir it made itself is removed on close. */
export async function startTestSim(opts: Partial<VimSimOptions> = {}): Promise<TestSim> {
  const auth = opts.auth ?? (await ensureServiceUser(embeddedCloud()));
  const ownDir = opts.dataDir === undefined ? tempDataDir() : undefined;
  const dataDir = opts.dataDir ?? ownDir!;
  let sim: VimSim;
  try {
    sim = await startVimSim({ host: '127.0.0.1', port: 0, dataDir, delayMs: 30, sshPort: 0, auth, ...opts });
  } catch (err) {
    if (ownDir) fs.rmSync(ownDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: sim.url,
    dataDir,
    async close() {
      await sim.close();
      if (ownDir) fs.rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

let adminLogin: Promise<Session> | undefined;

/** The simulator's /sim API, as the cloud's admin (it answers nobody else). */
export async function admin(sim: { url: string }, method: string, p: string, body?: unknown): Promise<HttpResult> {
  adminLogin ??= login(embeddedCloud()).catch((e) => { adminLogin = undefined; throw e; });
  return http(method, `${sim.url}/sim${p}`, body, { 'X-Auth-Token': (await adminLogin).token });
}

/** Calls the simulator's services as a product would, with a Keystone token. */
export class CloudClient {
  constructor(
    readonly sim: { url: string },
    readonly session: Session,
  ) {}

  static async connect(sim: { url: string }, cloud = embeddedCloud()): Promise<CloudClient> {
    return new CloudClient(sim, await login(cloud));
  }

  private base(service: 'compute' | 'network' | 'image' | 'volume'): string {
    return {
      compute: `${this.sim.url}/compute/v2.1`,
      network: `${this.sim.url}/network/v2.0`,
      image: `${this.sim.url}/image/v2`,
      volume: `${this.sim.url}/volume/v3/${this.session.projectId}`,
    }[service];
  }

  call<T = any>(service: 'compute' | 'network' | 'image' | 'volume', method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult<T>> {
    return http<T>(method, `${this.base(service)}${p}`, body, { 'X-Auth-Token': this.session.token, ...headers });
  }

  /** Polls a GET until check(body) holds or it answers 404 (then undefined). */
  async until(service: 'compute' | 'volume', p: string, check: (body: any) => boolean, timeoutMs = 10_000, headers: Record<string, string> = {}): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    let last: HttpResult | undefined;
    while (Date.now() < deadline) {
      last = await this.call(service, 'GET', p, undefined, headers);
      if (last.status === 404) return undefined;
      if (check(last.body)) return last.body;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`${p} did not get there: last ${last?.status} ${JSON.stringify(last?.body).slice(0, 400)}`);
  }
}

/** A Heat client as a product would use it: token + orchestration endpoint from the catalog. */
export class HeatTestClient {
  constructor(
    readonly session: Session,
    readonly heatUrl: string,
    /** The region whose compute, network, image and volume endpoints Heat uses for these stacks (regionFor). */
    readonly region?: string,
  ) {}

  static async connect(cloud = embeddedCloud(), region?: string): Promise<HeatTestClient> {
    const session = await login(cloud);
    const heat = session.catalog.find((s: any) => s.type === 'orchestration');
    const url = cloud.heatUrl ? `${cloud.heatUrl.replace(/\/+$/, '')}/v1/${session.projectId}` : heat?.endpoints.find((e: any) => e.interface === 'public')?.url;
    if (!url) throw new Error('no orchestration endpoint in the catalog');
    return new HeatTestClient(session, url, region);
  }

  call<T = any>(method: string, p: string, body?: unknown): Promise<HttpResult<T>> {
    return http<T>(method, `${this.heatUrl}/${p}`, body, { 'X-Auth-Token': this.session.token, ...(this.region ? { 'X-Region-Name': this.region } : {}) });
  }

  async createStack(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
    const res = await this.call('POST', 'stacks', body);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.stack.id, name: String(body.stack_name) };
  }

  /** The stack, or undefined when Heat does not have it; a 5xx (Heat on SQLite under load) is asked again. */
  async stack(nameOrPath: string): Promise<any> {
    for (let attempt = 1; ; attempt++) {
      const res = await this.call('GET', `stacks/${nameOrPath}`);
      if (res.status < 500 || attempt >= 3) return res.status === 200 ? res.body.stack : undefined;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Polls (bounded) until the stack reaches one of the statuses; returns the stack. */
  async waitFor(nameOrPath: string, statuses: string[], timeoutMs = 60_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    let last: any;
    while (Date.now() < deadline) {
      last = await this.stack(nameOrPath);
      if (last && statuses.includes(last.stack_status)) return last;
      if (last?.stack_status.endsWith('_FAILED')) throw new Error(`stack ${nameOrPath} is ${last.stack_status}: ${last.stack_status_reason}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`stack ${nameOrPath} did not reach ${statuses.join('|')}; last: ${last?.stack_status} ${last?.stack_status_reason}`);
  }

  /** Updates a stack (PUT: a new template, PATCH: changes only) and waits for that update to end COMPLETE. */
  async update(stackPath: string, body: Record<string, unknown>, method: 'PUT' | 'PATCH' = 'PUT', timeoutMs = 60_000): Promise<any> {
    const before = await this.stack(stackPath);
    const res = await this.call(method, `stacks/${stackPath}`, body);
    if (res.status !== 202) throw new Error(`update failed: ${res.status} ${JSON.stringify(res.body)}`);
    const done = await this.updateDone(stackPath, before?.updated_time, timeoutMs);
    if (done.stack_status !== 'UPDATE_COMPLETE') throw new Error(`stack ${stackPath} is ${done.stack_status}: ${done.stack_status_reason}`);
    return done;
  }

  /** The stack once the update that followed `updatedBefore` has ended (a status seen before it started does not count). */
  private async updateDone(stackPath: string, updatedBefore: string | undefined, timeoutMs: number): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    let started = false;
    let last: any;
    while (Date.now() < deadline) {
      const now = await this.stack(stackPath);
      if (now) {
        // (Heat's show fails now and then while it updates, e.g. resolving outputs: polled again)
        last = now;
        started ||= last.stack_status === 'UPDATE_IN_PROGRESS' || last.updated_time !== updatedBefore;
        if (started && !last.stack_status.endsWith('IN_PROGRESS')) return last;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`stack ${stackPath} update did not end; last: ${last?.stack_status} ${last?.stack_status_reason}`);
  }

  async resources(nameOrPath: string, depth = 2): Promise<any[]> {
    const res = await this.call('GET', `stacks/${nameOrPath}/resources?nested_depth=${depth}`);
    if (res.status !== 200) throw new Error(`resources failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.resources;
  }

  async resource(stackPath: string, name: string): Promise<any> {
    const res = await this.call('GET', `stacks/${stackPath}/resources/${name}`);
    if (res.status !== 200) throw new Error(`resource failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.resource;
  }

  async output(stackPath: string, key: string): Promise<any> {
    const stack = await this.stack(stackPath);
    return stack.outputs.find((o: any) => o.output_key === key)?.output_value;
  }

  /** Deletes a stack and waits until it is gone (DELETE_COMPLETE). */
  async deleteStack(name: string, timeoutMs = 60_000): Promise<void> {
    const stack = await this.stack(name);
    if (!stack) return;
    await this.call('DELETE', `stacks/${name}/${stack.id}`);
    await this.waitFor(`${name}/${stack.id}`, ['DELETE_COMPLETE'], timeoutMs);
  }
}
