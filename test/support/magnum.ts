/** Calls of the Magnum API (/v1) in tests: the latest microversion unless told, and waits on a cluster's status. */
import { call, eventually, type Res } from './api';

export const LATEST = { 'OpenStack-API-Version': 'container-infra latest' };

/** As call(), with `OpenStack-API-Version: container-infra latest` unless the headers say otherwise ({} for none: 1.1). */
export function mcall<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = LATEST): Promise<Res<T>> {
  return call<T>(method, path, body, headers);
}

/** The first error's detail, as the client shows it. */
export const detail = (r: Res) => String(r.body?.errors?.[0]?.detail ?? r.body?.error?.message ?? r.text);

/** Polls the cluster until its status is one of `want` (or it is gone: 'GONE'). */
export async function waitStatus(id: string, want: string[], timeoutMs = 240_000, headers: Record<string, string> = LATEST): Promise<any> {
  let seen = '';
  return eventually(`cluster ${id} in ${want.join('|')}`, async () => {
    const r = await mcall('GET', `/v1/clusters/${id}`, undefined, headers);
    seen = r.status === 404 ? 'GONE' : r.body?.status;
    if (!want.includes(seen)) throw new Error(`status ${seen}: ${r.body?.status_reason ?? ''}`);
    return r.status === 404 ? { status: 'GONE' } : r.body;
  }, timeoutMs, 1000);
}

/** A template on the simulator's Ubuntu image and public network, named uniquely. */
export function templateBody(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, coe: 'kubernetes', image_id: 'ubuntu-22.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.small', network_driver: 'flannel', ...extra };
}
