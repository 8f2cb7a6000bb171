/**
 * Nova (compute v2.1) client over a Keystone session: only what the product
 * needs, a server's console output (where cloud-init prints the SSH host
 * keys). A 401 triggers one re-authentication and a repeat of the call.
 */
import { KeystoneSession } from './keystone';
import { errorDetail, OpenStackHttpError, request } from './http';

export class NovaClient {
  constructor(private readonly session: KeystoneSession, private readonly ca?: string) {}

  /**
   * The server's console log (`os-getConsoleOutput`); the last `length` lines,
   * or all of it (Nova caps that at 100 KiB). 409 while the server has not
   * booted, 404 for an unknown server: both as OpenStackHttpError.
   */
  async consoleOutput(serverId: string, length?: number): Promise<string> {
    const path = `/servers/${encodeURIComponent(serverId)}/action`;
    for (let attempt = 0; ; attempt++) {
      const token = await this.session.getToken(attempt > 0);
      const url = `${await this.session.endpoint('compute')}${path}`;
      const r = await request('POST', url, {
        headers: { 'x-auth-token': token.value }, ca: this.ca, timeoutMs: 30_000, purpose: 'compute endpoint',
        body: { 'os-getConsoleOutput': length === undefined ? {} : { length } },
      });
      if (r.status === 401 && attempt === 0) continue;
      if (r.status !== 200) throw new OpenStackHttpError(r.status, 'POST', path, errorDetail(r, [token.value]));
      const output = (r.body as { output?: unknown } | undefined)?.output;
      return typeof output === 'string' ? output : '';
    }
  }
}
