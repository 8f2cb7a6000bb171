/** A small HTTP client for the product's API in tests, plus polling helpers. */
import { Client, Connection } from '@temporalio/client';
import { HeatClient, HeatResourceRow } from '../../infra/openstack/heat';
import { KeystoneSession } from '../../infra/openstack/keystone';
import { readState } from '../harness/state';

export interface Res<T = any> { status: number; headers: Headers; body: T; text: string }

export function apiUrl(): string {
  return readState().apiUrl;
}

export async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res<T>> {
  const isBuf = Buffer.isBuffer(body);
  const raw = typeof body === 'string';
  const r = await fetch(`${apiUrl()}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': isBuf ? 'application/zip' : 'application/json' }), ...headers },
    body: body === undefined ? undefined : isBuf ? new Uint8Array(body as Buffer) : raw ? (body as string) : JSON.stringify(body),
  });
  const text = await r.text();
  let parsed: any = undefined;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = undefined; }
  return { status: r.status, headers: r.headers, body: parsed, text };
}

export async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls an op occ until it is in one of the states; returns it. */
export async function waitOpState(opOccId: string, states: string[], timeoutMs = 60_000, v = 'v1'): Promise<any> {
  let seen = '';
  return eventually(`op occ ${opOccId} in ${states.join('|')} (last ${seen})`, async () => {
    const r = await call('GET', `/vnflcm/${v}/vnf_lcm_op_occs/${opOccId}`);
    seen = r.body?.operationState;
    return states.includes(seen) ? r.body : undefined;
  }, timeoutMs);
}

export const opIdFrom = (r: Res) => String(r.headers.get('location')).split('/').pop()!;

/** Uploads a zip into a new package and waits for onboarding to finish (ONBOARDED or back to CREATED). */
export async function onboard(zip: Buffer): Promise<any> {
  const created = await call('POST', '/vnfpkgm/v1/vnf_packages', { userDefinedData: { test: 'yes' } });
  if (created.status !== 201) throw new Error(`create package: ${created.status} ${created.text}`);
  const id = created.body.id;
  const up = await call('PUT', `/vnfpkgm/v1/vnf_packages/${id}/package_content`, zip);
  if (up.status !== 202) throw new Error(`upload: ${up.status} ${up.text}`);
  return eventually(`package ${id} onboarding`, async () => {
    const p = (await call('GET', `/vnfpkgm/v1/vnf_packages/${id}`)).body;
    return p.onboardingState === 'ONBOARDED' || (p.onboardingState === 'CREATED' && p.onboardingFailureDetails) ? p : undefined;
  });
}

export async function sim<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetch(`${readState().vimsimUrl}${path}`, {
    method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The stack's resources as Heat lists them, read with the product's own OpenStack client. */
export async function heatResources(stackName: string, stackId: string): Promise<HeatResourceRow[]> {
  const session = new KeystoneSession({ authUrl: `${readState().vimsimUrl}/identity/v3`, username: 'admin', password: 'devstack', project: 'admin' });
  return new HeatClient(session).listResources(stackName, stackId, 3);
}

export async function temporalClient(): Promise<Client> {
  const connection = await Connection.connect({ address: readState().temporalAddress });
  return new Client({ connection, namespace: 'default' });
}
