/**
 * One authenticated call of a SOL013 client (the coordination client, the
 * notification delivery): the authentication planned with every local check
 * before any connection (client-auth.ts planAuth), then the exchange with
 * its Authorization (HTTP Basic, or an OAuth 2.0 Bearer token from the
 * cache); on a 401 with OAuth 2.0, one fresh token and one repeat.
 */
import { accessToken, DEFAULT_TIMEOUT_MS, dropToken, planAuth, type AuthPlan, type CoordTarget } from './client-auth';
import { exchange, type ExchangeResponse } from './client-http';

/** An answer with the secrets its request carried (to mask them in what the server echoes). */
export type Answer = ExchangeResponse & { secrets: string[] };

export interface AuthenticatedCall {
  method: 'GET' | 'POST';
  url: URL;
  body?: Buffer;
  /** Headers besides Authorization (and Content-Type: application/json, added with a body). */
  headers?: Record<string, string>;
  /** What the URL is, for the outbound policy's messages. */
  purpose: string;
  /** The plan, when the caller made it already (it is planned from `t` and `url` otherwise). */
  plan?: AuthPlan;
}

export async function authenticatedCall(t: CoordTarget, c: AuthenticatedCall): Promise<Answer> {
  const plan = c.plan ?? planAuth(t, c.url);
  const timeoutMs = t.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const send = async (authorization?: string): Promise<Answer> => {
    const secrets = secretsOf(plan, authorization);
    const res = await exchange({
      method: c.method, url: c.url, body: c.body, timeoutMs, tls: plan.tls, stage: 'api', secrets, purpose: c.purpose,
      headers: {
        ...c.headers,
        ...(c.body ? { 'Content-Type': 'application/json' } : {}),
        ...(authorization ? { Authorization: authorization } : {}),
      },
    });
    return { ...res, secrets };
  };
  if (plan.kind === 'none') return send();
  if (plan.kind === 'basic') return send(plan.header);
  const token = await accessToken(plan, timeoutMs);
  const res = await send(`Bearer ${token}`);
  if (res.status !== 401) return res;
  dropToken(plan, token);
  const fresh = await accessToken(plan, timeoutMs);
  return send(`Bearer ${fresh}`);
}

function secretsOf(plan: AuthPlan, authorization?: string): string[] {
  const s = [...plan.secrets];
  if (authorization) s.push(authorization, authorization.replace(/^\S+\s+/, ''));
  return s;
}
