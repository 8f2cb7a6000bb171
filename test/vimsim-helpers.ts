/**
 * Shared helpers for the VIM simulator tests: start a simulator on an
 * ephemeral loopback port with a fresh data dir, authenticate, and talk to
 * Heat/admin endpoints with plain fetch.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startVimSim, type VimSim, type VimSimOptions } from '../vimsim/server';

type RequestRedirect = 'follow' | 'manual' | 'error';

export const SAMPLES = path.resolve(__dirname, '../../shared/tacker-samples');

export function readSample(relative: string): string {
  return fs.readFileSync(path.join(SAMPLES, relative), 'utf8');
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'vimsim-test-'));
}

/** Starts a simulator on an ephemeral port; a data dir it made itself is removed on close. */
export async function startTestSim(opts: Partial<VimSimOptions> = {}): Promise<VimSim> {
  const ownDir = opts.dataDir === undefined ? tempDataDir() : undefined;
  const sim = await startVimSim({ host: '127.0.0.1', port: 0, dataDir: opts.dataDir ?? ownDir!, delayMs: 30, ...opts });
  return {
    ...sim,
    async close() {
      await sim.close();
      if (ownDir) fs.rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function http<T = any>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}, redirect: RequestRedirect = 'follow'): Promise<HttpResult<T>> {
  const res = await fetch(url, {
    method,
    redirect,
    headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
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

export function passwordAuth(user = 'admin', password = 'devstack', project = 'admin') {
  return {
    auth: {
      identity: { methods: ['password'], password: { user: { name: user, password, domain: { name: 'Default' } } } },
      scope: { project: { name: project, domain: { name: 'Default' } } },
    },
  };
}

/** A Heat client as a product would use it: token + orchestration endpoint from the catalog. */
export class HeatTestClient {
  token = '';
  heatUrl = '';

  constructor(readonly sim: VimSim) {}

  static async connect(sim: VimSim): Promise<HeatTestClient> {
    const client = new HeatTestClient(sim);
    await client.authenticate();
    return client;
  }

  async authenticate(): Promise<void> {
    const res = await http('POST', `${this.sim.keystoneUrl}/auth/tokens`, passwordAuth());
    if (res.status !== 201) throw new Error(`auth failed: ${res.status} ${JSON.stringify(res.body)}`);
    this.token = res.headers.get('x-subject-token')!;
    const heat = res.body.token.catalog.find((s: any) => s.type === 'orchestration');
    this.heatUrl = heat.endpoints.find((e: any) => e.interface === 'public').url;
  }

  call<T = any>(method: string, path: string, body?: unknown, redirect: RequestRedirect = 'follow'): Promise<HttpResult<T>> {
    return http<T>(method, `${this.heatUrl}/${path}`, body, { 'X-Auth-Token': this.token }, redirect);
  }

  async createStack(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
    const res = await this.call('POST', 'stacks', body);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.stack.id, name: String(body.stack_name) };
  }

  async stack(nameOrPath: string): Promise<any> {
    const res = await this.call('GET', `stacks/${nameOrPath}`);
    return res.status === 200 ? res.body.stack : undefined;
  }

  /** Polls (bounded) until the stack reaches one of the statuses; returns the stack. */
  async waitFor(nameOrPath: string, statuses: string[], timeoutMs = 5000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    let last: any;
    while (Date.now() < deadline) {
      last = await this.stack(nameOrPath);
      if (last && statuses.includes(last.stack_status)) return last;
      await new Promise((r) => setTimeout(r, 15));
    }
    throw new Error(`stack ${nameOrPath} did not reach ${statuses.join('|')}; last: ${last?.stack_status} ${last?.stack_status_reason}`);
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
}

/** "name/id" of the stack that holds a resource, from its rel=stack link (as Tacker does). */
export function holdingStack(resource: any): string {
  const href: string = resource.links.find((l: any) => l.rel === 'stack').href;
  return href.split('/').slice(-2).join('/');
}

export function admin(sim: VimSim, method: string, path: string, body?: unknown): Promise<HttpResult> {
  return http(method, `${sim.url}/sim${path}`, body);
}
