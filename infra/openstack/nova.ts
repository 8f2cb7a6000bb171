/**
 * Nova (compute v2.1) client over a Keystone session: only what the product
 * needs, a server's console output (where cloud-init prints the SSH host
 * keys) and where it runs. A 401 triggers one re-authentication and a
 * repeat of the call.
 */
import { KeystoneSession } from './keystone';
import { errorDetail, OpenStackHttpError, request } from './http';

/** Where a server runs: its compute host's name (Nova shows it to admins), Nova's hash of it (to everyone), its server groups. */
export interface ServerPlacement {
  host?: string;
  hostId?: string;
  serverGroups: string[];
}

export class NovaClient {
  constructor(private readonly session: KeystoneSession, private readonly ca?: string) {}

  /**
   * The server's console log (`os-getConsoleOutput`); the last `length` lines,
   * or all of it (Nova caps that at 100 KiB). 409 while the server has not
   * booted, 404 for an unknown server: both as OpenStackHttpError.
   */
  async consoleOutput(serverId: string, length?: number): Promise<string> {
    const body = await this.send('POST', `/servers/${encodeURIComponent(serverId)}/action`, 200, { body: { 'os-getConsoleOutput': length === undefined ? {} : { length } } });
    const output = (body as { output?: unknown } | undefined)?.output;
    return typeof output === 'string' ? output : '';
  }

  /** The server's placement (microversion 2.71: its server groups in the server's own view). */
  async placement(serverId: string): Promise<ServerPlacement> {
    const body = await this.send('GET', `/servers/${encodeURIComponent(serverId)}`, 200, { headers: { 'x-openstack-nova-api-version': '2.71' } });
    const s = ((body as { server?: Record<string, unknown> } | undefined)?.server ?? {});
    const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
    return { host: text(s['OS-EXT-SRV-ATTR:host']), hostId: text(s.hostId), serverGroups: Array.isArray(s.server_groups) ? s.server_groups.filter((g): g is string => typeof g === 'string') : [] };
  }

  private async send(method: string, path: string, ok: number, o: { body?: unknown; headers?: Record<string, string> }): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.session.getToken(attempt > 0);
      const url = `${await this.session.endpoint('compute')}${path}`;
      const r = await request(method, url, { headers: { 'x-auth-token': token.value, ...o.headers }, ca: this.ca, timeoutMs: 30_000, purpose: 'compute endpoint', body: o.body });
      if (r.status === 401 && attempt === 0) continue;
      if (r.status !== ok) throw new OpenStackHttpError(r.status, method, path, errorDetail(r, [token.value]));
      return r.body;
    }
  }
}
