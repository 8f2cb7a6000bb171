/**
 * SOL002 v3.6.1 VNF LCM coordination client (API 1.0.0), as single exchanges
 * the change_vnfpkg workflow drives: it does the waiting between them with
 * durable timers, so nothing here sleeps or loops on Retry-After.
 *
 *   postCoordination   POST {endpoint}/lcmcoord/v1/coordinations
 *                      201 -> result, 503 -> busy (send again later), 202 -> async (poll Location)
 *   getCoordination    GET the Location the 202 gave (200 -> result, 202 -> pending)
 *   cancelCoordination POST .../coordinations/{id}/cancel (202; 404/409 = already finished)
 *
 * Where Tacker's coord_client differs (see docs reference): Retry-After as an
 * HTTP-date is honoured, the Location URL itself is polled, tokens are cached,
 * and a failed token request is an error instead of an unauthenticated call.
 *
 * Credentials go only where they were configured for: the Authorization
 * header (and the client certificate) only to the coordination endpoint's
 * origin. A 202 Location on another origin is refused when the target has
 * authentication (it would be polled without credentials and answer 401, or
 * be answered by a server we cannot authenticate), and followed plainly when
 * the target has none: there is nothing to withhold, and the outbound policy
 * still applies to it.
 */
import { COORD_API_VERSION, COORD_BASE, LcmCoord, type LcmCoordRequest } from '../model/coordination';
import { CoordinationError, exchange, remoteText, scrub, showUrl, type ExchangeResponse } from './client-http';
import { chosenAuthType, clientCertHostsMessage, planAuth, type CoordTarget } from './client-auth';
import { authenticatedCall, type Answer } from './client-call';
import { hostListAllows, outboundSettings, outboundUrlProblem } from '../common/outbound';

export { CoordinationError } from './client-http';
export { certificateThumbprint, clearTokenCache, operatorCoordTls, type CoordTarget } from './client-auth';

export type PostOutcome =
  | { kind: 'result'; coord: LcmCoord }
  | { kind: 'busy'; retryAfterMs: number; problem?: unknown }
  | { kind: 'async'; location: string; retryAfterMs: number };

export type GetOutcome = { kind: 'result'; coord: LcmCoord } | { kind: 'pending'; retryAfterMs: number };

/** Delay when the server gives no (or an unreadable) Retry-After. */
export const DEFAULT_RETRY_AFTER_MS = 5_000;

/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, in ms from
 * now (a date in the past gives 0); defaultMs when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: Date, defaultMs: number): number {
  if (value === undefined) return defaultMs;
  const v = value.trim();
  if (/^\d+$/.test(v)) {
    const ms = Number(v) * 1000;
    return Number.isSafeInteger(ms) ? ms : defaultMs;
  }
  // HTTP-date: IMF-fixdate, RFC 850 or asctime; all name the month in letters
  // (Date.parse alone would read "5" or "2024" as dates)
  if (!/\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b/i.test(v)) return defaultMs;
  const at = Date.parse(/GMT|UTC|[+-]\d{4}$/i.test(v) ? v : `${v} GMT`);
  if (Number.isNaN(at)) return defaultMs;
  return Math.max(0, at - now.getTime());
}

export async function postCoordination(t: CoordTarget, req: LcmCoordRequest): Promise<PostOutcome> {
  const url = new URL(coordinationsUrl(t));
  const res = await call(t, 'POST', url, Buffer.from(JSON.stringify(req)));
  const now = new Date();
  const retryAfter = () => parseRetryAfter(header(res, 'retry-after'), now, DEFAULT_RETRY_AFTER_MS);
  switch (res.status) {
    case 200: // 201 per SOL002; a 200 with the same body is read the same way
    case 201:
      return { kind: 'result', coord: readCoord(res, 'POST', url) };
    case 503: {
      const problem = parseJson(res.text);
      return { kind: 'busy', retryAfterMs: retryAfter(), ...(problem !== undefined ? { problem } : {}) };
    }
    case 202: {
      const loc = header(res, 'location');
      if (!loc) throw new CoordinationError(`POST ${showUrl(url)} answered 202 without a Location header`, { status: 202, retryable: false });
      return { kind: 'async', location: resolveLocation(loc, url, t), retryAfterMs: retryAfter() };
    }
    default:
      throw httpError('POST', url, res);
  }
}

export async function getCoordination(t: CoordTarget, location: string): Promise<GetOutcome> {
  const url = resolveLocation(location, new URL(coordinationsUrl(t)), t);
  const u = new URL(url);
  const res = await call(t, 'GET', u);
  const now = new Date();
  switch (res.status) {
    case 200:
      return { kind: 'result', coord: readCoord(res, 'GET', u) };
    case 202: // still running
    case 503: // busy: same answer, try again after Retry-After
      return { kind: 'pending', retryAfterMs: parseRetryAfter(header(res, 'retry-after'), now, DEFAULT_RETRY_AFTER_MS) };
    default:
      throw httpError('GET', u, res);
  }
}

/**
 * Asks the server to cancel a coordination: by its id (under the endpoint) or
 * by the Location a 202 gave. 404 and 409 mean it has already finished (or
 * was never there): not an error.
 */
export async function cancelCoordination(t: CoordTarget, coordinationIdOrLocation: string): Promise<void> {
  const s = coordinationIdOrLocation.trim();
  if (!s) throw new CoordinationError('cancelCoordination needs a coordination id or Location', { retryable: false, stage: 'config' });
  const base = new URL(coordinationsUrl(t));
  const resource = /^https?:\/\//i.test(s) || s.startsWith('/')
    ? resolveLocation(s, base, t)
    : `${base.href}/${encodeURIComponent(s)}`;
  const u = new URL(resource);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/cancel`;
  u.search = '';
  const res = await call(t, 'POST', u);
  if ((res.status >= 200 && res.status < 300) || res.status === 404 || res.status === 409) return;
  throw httpError('POST', u, res);
}

// ---- helpers --------------------------------------------------------------

function coordinationsUrl(t: CoordTarget): string {
  let u: URL;
  try {
    u = new URL(t.endpoint);
  } catch {
    throw new CoordinationError('the coordination endpoint is not an absolute URL', { retryable: false, stage: 'config' });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new CoordinationError(`the coordination endpoint ${showUrl(u)} must be http or https`, { retryable: false, stage: 'config' });
  }
  if (u.username || u.password) {
    throw new CoordinationError(`the coordination endpoint ${showUrl(u)} must not carry credentials (user:password@)`, { retryable: false, stage: 'config' });
  }
  u.search = '';
  u.hash = '';
  return `${u.href.replace(/\/+$/, '')}${COORD_BASE}/coordinations`;
}

/**
 * The Location as an absolute URL, resolved against the request URL (RFC 9110
 * §10.2.2; an absolute-path Location lands on the endpoint's origin). It must
 * be http(s), not plain http when the endpoint is https (credentials would
 * travel in clear), not carry credentials, and be on the endpoint's origin
 * when the target authenticates (credentials go only to the endpoint).
 */
function resolveLocation(loc: string, base: URL, t: CoordTarget): string {
  let u: URL;
  try {
    u = new URL(loc.trim(), base);
  } catch {
    throw new CoordinationError(`the coordination Location is not a valid URL`, { retryable: false });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new CoordinationError(`the coordination Location ${showUrl(u)} is not http or https`, { retryable: false });
  }
  if (base.protocol === 'https:' && u.protocol === 'http:') {
    throw new CoordinationError(`the coordination Location ${showUrl(u)} downgrades https to http; refusing to send credentials in clear`, { retryable: false });
  }
  if (u.username || u.password) {
    throw new CoordinationError(`the coordination Location ${showUrl(u)} carries credentials (user:password@); refused`, { retryable: false });
  }
  if (t.authentication && u.origin !== base.origin) {
    throw new CoordinationError(
      `the coordination Location ${showUrl(u)} is on another origin than the coordination endpoint (${base.origin}); `
      + 'the credentials configured for the endpoint are not sent there, so it is not followed', { retryable: false });
  }
  u.hash = '';
  return u.href;
}

/** One API call with its authentication (client-call.ts), only ever to the coordination endpoint's origin when it carries credentials. */
async function call(t: CoordTarget, method: 'GET' | 'POST', url: URL, body?: Buffer): Promise<Answer> {
  const plan = planAuth(t, url); // every local check, before any network call
  const base = new URL(coordinationsUrl(t));
  const endpointOrigin = base.origin;
  if (plan.kind !== 'none' && url.origin !== endpointOrigin) {
    // resolveLocation refuses such URLs first; this is the last line before an Authorization header leaves
    throw new CoordinationError(`${showUrl(url)} is not on the coordination endpoint's origin (${endpointOrigin}); credentials are not sent there`, { retryable: false, stage: 'config' });
  }
  const purpose = url.origin === endpointOrigin && url.pathname.startsWith(base.pathname) ? 'coordination endpoint' : 'coordination Location';
  return authenticatedCall(t, { method, url, body, plan, purpose, headers: { Version: COORD_API_VERSION } });
}

function header(res: ExchangeResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try { return JSON.parse(text); } catch { return undefined; }
}

function readCoord(res: ExchangeResponse, method: string, url: URL): LcmCoord {
  const parsed = LcmCoord.safeParse(parseJson(res.text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const what = issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'not JSON';
    throw new CoordinationError(`${method} ${showUrl(url)} answered ${res.status} with an invalid LcmCoord (${what})`, { status: res.status, retryable: false });
  }
  return parsed.data;
}

/** The error for an answer that is neither an outcome nor "already finished". */
function httpError(method: string, url: URL, res: Answer): CoordinationError {
  const p = parseJson(res.text) as Record<string, unknown> | undefined;
  const detail = typeof p?.detail === 'string' ? p.detail : typeof p?.title === 'string' ? p.title
    : res.text && !/^\s*[<{[]/.test(res.text) ? res.text : '';
  const status = res.status;
  // 408/429 are "try later" by definition even though they are 4xx
  const retryable = status >= 500 || status === 408 || status === 429 || status < 200;
  const retryAfterMs = retryable && header(res, 'retry-after') !== undefined
    ? parseRetryAfter(header(res, 'retry-after'), new Date(), DEFAULT_RETRY_AFTER_MS) : undefined;
  const shown = detail ? remoteText(detail, res.secrets) : '';
  const msg = scrub(`${method} ${showUrl(url)} -> ${status}${shown ? `: ${shown}` : ''}`, res.secrets);
  return new CoordinationError(msg, { status, retryable, stage: 'api', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}

/**
 * For the API (answer 400/422 before anything runs): why a coordination
 * target (vnfc_param endpoint + authentication) would be refused, or
 * undefined. No network and no file access: the endpoint and token endpoint
 * URLs against the outbound policy (literal addresses and host names; names
 * are resolved and checked again at call time), and OAUTH2_CLIENT_CERT only
 * to hosts in COORD_CLIENT_CERT_HOSTS. `what` names the endpoint in messages
 * (the notification subscriptions check their callbackUri with it).
 */
export function coordinationTargetProblem(p: Pick<CoordTarget, 'endpoint' | 'authentication'>, what = 'coordination endpoint'): string | undefined {
  if (!p.endpoint) return undefined;
  const endpoint = outboundUrlProblem(p.endpoint, { purpose: what });
  if (endpoint) return endpoint;
  const a = p.authentication;
  if (!a) return undefined;
  const mode = chosenAuthType(a);
  const tokenEndpoint = mode === 'OAUTH2_CLIENT_CERT' ? a.paramsOauth2ClientCert?.tokenEndpoint
    : mode === 'OAUTH2_CLIENT_CREDENTIALS' ? a.paramsOauth2ClientCredentials?.tokenEndpoint : undefined;
  if (tokenEndpoint) {
    const why = outboundUrlProblem(tokenEndpoint, { purpose: 'OAuth 2.0 token endpoint' });
    if (why) return why;
  }
  if (mode === 'OAUTH2_CLIENT_CERT') {
    let hosts: string[];
    try {
      hosts = outboundSettings().clientCertHosts;
    } catch (e) {
      return (e as Error).message;
    }
    for (const [name, u] of [[what, p.endpoint], ['token endpoint', tokenEndpoint]] as const) {
      if (u && !hostListAllows(new URL(u), hosts)) return clientCertHostsMessage(name, new URL(u), hosts);
    }
  }
  return undefined;
}

