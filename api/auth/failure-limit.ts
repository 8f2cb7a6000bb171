/**
 * Failed authentications per client (its address, as the socket gives it):
 * after `limit` failures within a window, the client's requests with a token
 * not already known to be valid get 429 with Retry-After until its window
 * ends, without a Keystone round trip. Callers whose tokens were validated
 * keep working, from any address; other clients are not affected.
 */
export class AuthFailureLimiter {
  private readonly clients = new Map<string, { since: number; failures: number }>();

  constructor(private readonly limit: number, private readonly windowMs: number, private readonly maxClients = 10_000) {}

  /** Seconds until this client's unknown tokens are checked again; 0: now. */
  retryAfter(client: string, now = Date.now()): number {
    const c = this.clients.get(client);
    if (!c) return 0;
    if (now - c.since >= this.windowMs) {
      this.clients.delete(client);
      return 0;
    }
    return c.failures >= this.limit ? Math.max(1, Math.ceil((c.since + this.windowMs - now) / 1000)) : 0;
  }

  failed(client: string, now = Date.now()): void {
    const c = this.clients.get(client);
    if (c && now - c.since < this.windowMs) {
      c.failures++;
      return;
    }
    this.clients.delete(client);
    // the oldest entry goes first when full: a flood of addresses cannot grow the map
    if (this.clients.size >= this.maxClients) this.clients.delete(this.clients.keys().next().value as string);
    this.clients.set(client, { since: now, failures: 1 });
  }
}
