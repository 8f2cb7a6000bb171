/** A small HTTP client for the product's API in tests, plus polling helpers. */
import { Client, Connection } from '@temporalio/client';
import { HeatClient, HeatResourceRow } from '../../infra/openstack/heat';
import { KeystoneSession } from '../../infra/openstack/keystone';
import { own } from '../harness/owned';
import { readState } from '../harness/state';
import { fetchAgainIfIdleClosed } from './fetch-again';
import { onlyInDisruptiveTier } from './tier-guard';

export interface Res<T = any> { status: number; headers: Headers; body: T; text: string }

export function apiUrl(): string {
  return readState().apiUrl;
}

let adminSession: KeystoneSession | undefined;

/** A token of the embedded Keystone's admin (project admin), cached; the API's default caller in tests. */
export async function adminToken(): Promise<string> {
  adminSession ??= new KeystoneSession({ authUrl: readState().keystoneUrl, username: 'admin', password: readState().adminPassword, project: 'admin', region: 'RegionOne' });
  return (await adminSession.getToken()).value;
}

/**
 * Calls the API as the admin, unless `headers` carries its own X-Auth-Token
 * (another caller) or `'x-auth-token': ''` (no token at all).
 */
export async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, base = apiUrl()): Promise<Res<T>> {
  const isBuf = Buffer.isBuffer(body);
  const raw = typeof body === 'string';
  const given = Object.keys(headers).find((k) => k.toLowerCase() === 'x-auth-token');
  const auth: Record<string, string> = given === undefined ? { 'x-auth-token': await adminToken() } : {};
  const sent = { ...headers };
  if (given !== undefined && !headers[given]) delete sent[given];
  const r = await fetchAgainIfIdleClosed(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': isBuf ? 'application/zip' : 'application/json' }), ...auth, ...sent },
    body: body === undefined ? undefined : isBuf ? new Uint8Array(body as Buffer) : raw ? (body as string) : JSON.stringify(body),
  });
  const text = await r.text();
  let parsed: any = undefined;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = undefined; }
  // what this file creates is checked for leftovers after it (test/harness/leak-check-environment.ts)
  if (method === 'POST' && r.status < 300 && /^\/v1\/clusters\/?$/.test(path)) own('clusters', parsed?.uuid);
  if (r.status === 202) own('operations', /\/vnf_lcm_op_occs\/([0-9a-f-]{36})$/.exec(r.headers.get('location') ?? '')?.[1]);
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
export async function waitOpState(opOccId: string, states: string[], timeoutMs = 60_000, v = 'v1', base = apiUrl()): Promise<any> {
  let seen = 'none';
  try {
    return await eventually(`op occ ${opOccId} in ${states.join('|')}`, async () => {
      const r = await call('GET', `/vnflcm/${v}/vnf_lcm_op_occs/${opOccId}`, undefined, {}, base);
      seen = `${r.status} ${r.body?.operationState ?? ''} ${r.body?.currentStep ?? ''}`.trim();
      return states.includes(r.body?.operationState) ? r.body : undefined;
    }, timeoutMs);
  } catch (e) {
    // the message is made when the wait starts: the state last seen is only known now
    throw new Error(`${(e as Error).message}; last seen: ${seen}`);
  }
}

export const opIdFrom = (r: Res) => String(r.headers.get('location')).split('/').pop()!;

/** Uploads a zip into a new package and waits for onboarding to finish (ONBOARDED or back to CREATED). */
export async function onboard(zip: Buffer, headers: Record<string, string> = {}, base = apiUrl()): Promise<any> {
  const created = await call('POST', '/vnfpkgm/v1/vnf_packages', { userDefinedData: { test: 'yes' } }, headers, base);
  if (created.status !== 201) throw new Error(`create package: ${created.status} ${created.text}`);
  const id = created.body.id;
  const up = await call('PUT', `/vnfpkgm/v1/vnf_packages/${id}/package_content`, zip, headers, base);
  if (up.status !== 202) throw new Error(`upload: ${up.status} ${up.text}`);
  return eventually(`package ${id} onboarding`, async () => {
    const p = (await call('GET', `/vnfpkgm/v1/vnf_packages/${id}`, undefined, headers, base)).body;
    return p.onboardingState === 'ONBOARDED' || (p.onboardingState === 'CREATED' && p.onboardingFailureDetails) ? p : undefined;
  });
}

/** The simulator's /sim API, as the cloud's admin (it answers nobody else). */
export async function sim<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetchAgainIfIdleClosed(`${readState().vimsimUrl}${path}`, {
    method, headers: { 'x-auth-token': await adminToken(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The embedded Heat as the admin user, through the product's own OpenStack client. */
export function adminHeat(): HeatClient {
  return new HeatClient(new KeystoneSession({ authUrl: readState().keystoneUrl, username: 'admin', password: readState().adminPassword, project: 'admin', region: 'RegionOne' }));
}

/** The stack's resources as Heat lists them. */
export async function heatResources(stackName: string, stackId: string): Promise<HeatResourceRow[]> {
  return adminHeat().listResources(stackName, stackId, 3);
}

/** Every stack Heat has by that name, deleted ones included. */
export async function stacksNamed(name: string): Promise<{ id: string; name: string; status: string; reason?: string }[]> {
  const stacks = await adminHeat().listStacks({ name, showDeleted: true });
  return stacks.map((s) => ({ id: s.id, name: s.stack_name, status: s.stack_status, reason: s.stack_status_reason }));
}

export async function temporalClient(): Promise<Client> {
  const connection = await Connection.connect({ address: readState().temporalAddress });
  return new Client({ connection, namespace: 'default' });
}

/**
 * How the health loop of a deleted cluster ended, once it did: its status and whether the deletion cancelled it
 * (cluster/activities/health.ts endHealthLoop) rather than the loop finding the cluster gone at its next poll.
 */
export async function healthLoopEnd(clusterId: string): Promise<{ status: string; cancelledByDeletion: boolean }> {
  const client = await temporalClient();
  try {
    const handle = client.workflow.getHandle(`cluster-health-${clusterId}`);
    const status = await eventually('the health loop ended', async () => { const d = await handle.describe(); return d.status.name === 'RUNNING' ? undefined : d.status.name; }, 30_000, 500);
    const { events } = await handle.fetchHistory();
    return { status, cancelledByDeletion: (events ?? []).some((e) => e.workflowExecutionCancelRequestedEventAttributes) };
  } finally {
    await client.connection.close();
  }
}

/** A fault of the simulated cloud (vimsim/README.md), hitting the next `times` matching operations; Heat reports it. */
export interface CloudFault {
  target: 'server' | 'port' | 'volume' | 'image';
  operation: 'create' | 'delete' | 'rebuild' | 'pull';
  mode: 'fail' | 'hang';
  message?: string;
  /** The HTTP status a failing port create answers (Neutron's 409 by default; a 400 Heat does not retry). */
  code?: number;
  match?: string;
  times?: number;
}
/**
 * Heat tries a failed resource create or update 6 times (action_retry_limit
 * 5), for every resource at once: a fault meant to fail the stack lasts until
 * the test clears it (the operator fixed the cloud).
 */
export const UNTIL_CLEARED = 10_000;

/** A failing or hanging command on the simulator's machines (vimsim/ssh/routes.ts). */
export interface SshFault { match: string; server?: string; exitCode?: number; stderr?: string; stdout?: string; hang?: boolean; times?: number }

/** This file's faults on the shared simulator, as their paths (/sim/faults/<id>, /sim/ssh/faults/<id>). */
const myFaults = new Set<string>();

async function injectFault(collection: '/sim/faults' | '/sim/ssh/faults', spec: object): Promise<{ id: string }> {
  onlyInDisruptiveTier('a fault in the shared simulator');
  const fault = await sim<{ id: string }>('POST', collection, spec);
  if (!fault?.id) throw new Error(`the simulator refused the fault ${JSON.stringify(spec)}: ${JSON.stringify(fault)}`);
  myFaults.add(`${collection}/${fault.id}`);
  own('faults', `${collection}/${fault.id}`);
  return fault;
}

export const addFault = (f: CloudFault) => injectFault('/sim/faults', { times: 1, ...f });
export const addSshFault = (f: SshFault) => injectFault('/sim/ssh/faults', f);

/** Removes the faults this file added, never another file's (one used up may be gone already: a 404 is fine). */
export async function clearFaults(): Promise<void> {
  for (const faultPath of myFaults) {
    await sim('DELETE', faultPath);
    myFaults.delete(faultPath);
  }
}

/** Name of the Glance image a Nova server runs ('' when it boots from a volume), read as the admin user. */
export async function serverImageName(serverId: string): Promise<string> {
  const session = new KeystoneSession({ authUrl: readState().keystoneUrl, username: 'admin', password: readState().adminPassword, project: 'admin', region: 'RegionOne' });
  const token = (await session.getToken()).value;
  const get = async (url: string) => {
    const r = await fetch(url, { headers: { 'x-auth-token': token } });
    if (!r.ok) throw new Error(`GET ${url} -> ${r.status}`);
    return r.json() as Promise<any>;
  };
  const { server } = await get(`${await session.endpoint('compute')}/servers/${serverId}`);
  const imageId = typeof server.image === 'object' && server.image ? server.image.id : '';
  return imageId ? (await get(`${await session.endpoint('image')}/v2/images/${imageId}`)).name : '';
}
