/**
 * Neutron (network v2.0) client over a Keystone session: only what the
 * product writes itself, a port's fixed IPs (Heat leaves a port it failed to
 * replace without them: see ops/vnflcm/change-ext-conn). A 401 triggers one
 * re-authentication and a repeat of the call.
 */
import { KeystoneSession } from './keystone';
import { errorDetail, OpenStackHttpError, request } from './http';

export interface FixedIp { ip_address: string; subnet_id?: string }

export class NeutronClient {
  constructor(private readonly session: KeystoneSession, private readonly ca?: string) {}

  private async call(method: 'GET' | 'PUT', path: string, body?: unknown): Promise<{ status: number; body: any }> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.session.getToken(attempt > 0);
      const base = (await this.session.endpoint('network')).replace(/\/+$/, '').replace(/\/v2\.0$/, '');
      const r = await request(method, `${base}/v2.0${path}`, { headers: { 'x-auth-token': token.value }, body, ca: this.ca, timeoutMs: 30_000, purpose: 'network endpoint' });
      if (r.status === 401 && attempt === 0) continue;
      if (r.status !== 200 && r.status !== 404) throw new OpenStackHttpError(r.status, method, path, errorDetail(r, [token.value]));
      return { status: r.status, body: r.body };
    }
  }

  /** The port's fixed IPs; undefined when there is no such port. */
  async fixedIps(portId: string): Promise<FixedIp[] | undefined> {
    const r = await this.call('GET', `/ports/${encodeURIComponent(portId)}`);
    return r.status === 404 ? undefined : (r.body?.port?.fixed_ips ?? []);
  }

  async setFixedIps(portId: string, fixedIps: FixedIp[]): Promise<void> {
    const r = await this.call('PUT', `/ports/${encodeURIComponent(portId)}`, { port: { fixed_ips: fixedIps } });
    if (r.status === 404) throw new OpenStackHttpError(404, 'PUT', `/ports/${portId}`, 'no such port');
  }
}
