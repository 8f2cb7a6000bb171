/**
 * Validated tokens, so each request does not cost a Keystone round trip:
 * kept until the token expires but at most `ttlMs`, at most `max` entries
 * (the least recently used go first). Like keystonemiddleware's token cache,
 * a revoked token stays usable until its entry ages out.
 */
import type { RequestContext } from './context';

export class TokenCache {
  private readonly entries = new Map<string, { ctx: RequestContext; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  get(token: string): RequestContext | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    this.entries.delete(token);
    if (entry.until <= Date.now()) return undefined;
    this.entries.set(token, entry); // most recently used last
    return entry.ctx;
  }

  set(token: string, ctx: RequestContext): void {
    const until = Math.min(ctx.expiresAt, Date.now() + this.ttlMs);
    if (until <= Date.now()) return;
    this.entries.delete(token);
    this.entries.set(token, { ctx, until });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

}
