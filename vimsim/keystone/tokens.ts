/** Token issue, validation and forced expiry; tokens persist with the rest of the state. */
import type { StateStore } from '../state/store';
import type { TokenRecord } from '../state/model';
import { newTokenId } from '../util/ids';

export class TokenService {
  constructor(
    private readonly store: StateStore,
    private readonly ttlSec: number,
  ) {}

  issue(userId: string, projectId: string | undefined, methods: string[]): TokenRecord {
    const now = Date.now();
    const token: TokenRecord = { id: newTokenId(), userId, projectId, methods, issuedAt: now, expiresAt: now + this.ttlSec * 1000 };
    this.store.data.tokens[token.id] = token;
    this.store.save();
    return token;
  }

  /** The token if it exists and has not expired. */
  validate(id: string | undefined): TokenRecord | undefined {
    const token = id ? this.store.data.tokens[id] : undefined;
    return token && token.expiresAt > Date.now() ? token : undefined;
  }

  /** Expires every token (admin API), so a client's re-authentication path can be exercised. */
  expireAll(): number {
    const now = Date.now();
    const tokens = Object.values(this.store.data.tokens).filter((t) => t.expiresAt > now);
    for (const t of tokens) t.expiresAt = now - 1;
    this.store.save();
    return tokens.length;
  }
}
