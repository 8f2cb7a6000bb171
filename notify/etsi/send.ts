/**
 * An ETSI notification's delivery to its subscription's callbackUri, and the
 * test GET a new subscription's callback gets: with the subscription's
 * SubscriptionAuthentication (unsealed here, never in a workflow's history
 * or a log), through the SOL013 client the coordination client uses
 * (coord/client-call.ts: HTTP Basic, OAuth 2.0 client credentials with its
 * token cache, OAUTH2_CLIENT_CERT with the VNFM's client certificate of
 * COORD_CLIENT_CERT, only to COORD_CLIENT_CERT_HOSTS), and the outbound
 * policy on every URL and address.
 */
import type { ActivityDeps } from '../../lcm-activities/deps';
import type { OutboxRow } from '../../store/repos/notifications';
import { subscriptionById } from '../../store/repos/subscriptions';
import type { SecretBox } from '../../common/secrets';
import { operatorCoordTls, type CoordTarget } from '../../coord/client-auth';
import { authenticatedCall } from '../../coord/client-call';
import { CoordinationError, remoteText, showUrl } from '../../coord/client-http';
import type { SubscriptionAuthentication } from '../../model/subscriptions';
import type { Attempt } from '../contracts';

export const API_VERSION_HEADER = { v1: '1.3.0', v2: '2.0.0' } as const;

export interface Callback { callbackUri: string; apiVersion: 'v1' | 'v2'; authentication?: SubscriptionAuthentication }

export function callbackOf(box: SecretBox, s: { callbackUri: string; apiVersion: 'v1' | 'v2'; authenticationSealed: string | null }): Callback {
  return { callbackUri: s.callbackUri, apiVersion: s.apiVersion, authentication: s.authenticationSealed ? JSON.parse(box.open(s.authenticationSealed)) : undefined };
}

function targetOf(c: Callback, timeoutMs: number): CoordTarget {
  return { endpoint: c.callbackUri, authentication: c.authentication, timeoutMs, ...operatorCoordTls() };
}

/** One exchange with the callback: its status, or why there was none (CoordinationError: `final` when no retry can help). */
export async function callCallback(c: Callback, method: 'GET' | 'POST', timeoutMs: number, body?: unknown): Promise<{ status: number; detail: string } | { error: string; final: boolean }> {
  try {
    const url = new URL(c.callbackUri);
    const res = await authenticatedCall(targetOf(c, timeoutMs), {
      method, url, purpose: 'callbackUri', headers: { Version: API_VERSION_HEADER[c.apiVersion] },
      ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
    });
    return { status: res.status, detail: remoteText(res.text, res.secrets) };
  } catch (e) {
    if (e instanceof CoordinationError) return { error: e.message, final: !e.retryable };
    return { error: `${method} ${showUrl(c.callbackUri)}: ${(e as Error).message}`.slice(0, 300), final: e instanceof TypeError };
  }
}

export async function postEtsi({ db, box, cfg }: ActivityDeps, row: OutboxRow): Promise<Attempt> {
  const sub = row.subscriptionId ? await subscriptionById(db, row.subscriptionId) : undefined;
  if (!sub) return { problem: 'the subscription was deleted', final: true };
  const r = await callCallback(callbackOf(box, sub), 'POST', cfg.notifications.httpTimeoutMs, row.payload);
  if ('error' in r) return { problem: r.error, final: r.final };
  if (r.status >= 200 && r.status < 300) return undefined;
  return { problem: `POST ${showUrl(sub.callbackUri)} answered ${r.status}${r.detail ? `: ${r.detail}` : ''}` };
}
