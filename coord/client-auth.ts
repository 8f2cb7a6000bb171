/**
 * Authentication of the coordination client (vnfc_param.authentication, as
 * SOL013 SubscriptionAuthentication): choosing the method, HTTP Basic, and
 * OAuth 2.0 client-credentials tokens (by client secret, or by mutual TLS
 * with a client certificate whose x5t#S256 thumbprint is checked first).
 *
 * Tokens are cached in-process until shortly before they expire, keyed by
 * token endpoint, client id, a hash of the credential AND the coordination
 * endpoint (so a caller with the same client id but another secret or
 * certificate, or who names another endpoint, never gets someone else's
 * token). A token request that fails is an error: the call is never sent
 * without its Authorization.
 *
 * The operator's client certificate (COORD_CLIENT_CERT, operatorCoordTls)
 * is presented only to the hosts of COORD_CLIENT_CERT_HOSTS: both the token
 * endpoint and the coordination endpoint of an OAUTH2_CLIENT_CERT target
 * must be listed, checked before the thumbprint and before any connection.
 */
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import type { CoordAuthentication } from '../model/coordination';
import { CoordinationError, exchange, remoteText, scrub, showUrl, type TlsOptions } from './client-http';
import { hostListAllows, outboundSettings } from '../common/outbound';

/** The target a coordination call goes to (the VNFC's coordination server and how to authenticate). */
export interface CoordTarget {
  /** Base URL of the coordination server; the API is at {endpoint}/lcmcoord/v1. */
  endpoint: string;
  authentication?: CoordAuthentication;
  /** PEM of a custom CA for the server's (and token endpoint's) certificate. */
  ca?: string;
  /**
   * PEM client certificate and key, for OAUTH2_CLIENT_CERT (mutual TLS).
   * allowedHosts (COORD_CLIENT_CERT_HOSTS syntax): the only hosts it may be
   * presented to, token endpoint and coordination endpoint alike; [] = none.
   * The product always sets it (operatorCoordTls); omitted, the caller
   * vouches for this target's hosts itself.
   */
  clientCert?: { cert: string; key: string; allowedHosts?: readonly string[] };
  /** Deadline of one HTTP exchange (connect + response), default 30 s. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/** x5t#S256 (RFC 7515 §4.1.8): base64url, without padding, of the SHA-256 of the certificate's DER. */
export function certificateThumbprint(pemCert: string): string {
  let der: Buffer;
  try {
    der = new X509Certificate(pemCert).raw;
  } catch {
    throw new CoordinationError('client certificate is not a valid PEM X.509 certificate', { retryable: false, stage: 'config' });
  }
  return createHash('sha256').update(der).digest('base64url');
}

/** Thumbprints as people write them: tolerate padding and the standard base64 alphabet. */
function normalizeThumbprint(v: string): string {
  return v.trim().replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

export type AuthPlan =
  | { kind: 'none'; tls: TlsOptions; secrets: string[] }
  | { kind: 'basic'; header: string; tls: TlsOptions; secrets: string[] }
  | {
      kind: 'oauth2';
      mode: 'OAUTH2_CLIENT_CREDENTIALS' | 'OAUTH2_CLIENT_CERT';
      tokenEndpoint: URL;
      clientId: string;
      clientSecret?: string;
      cacheKey: string;
      /** TLS for both the token endpoint and the API (carries the client certificate in CLIENT_CERT mode). */
      tls: TlsOptions;
      secrets: string[];
    };

const PREFERENCE = ['OAUTH2_CLIENT_CERT', 'OAUTH2_CLIENT_CREDENTIALS', 'BASIC'] as const;

/** The method a call uses: the first of PREFERENCE that authType lists and whose parameters are given. */
export function chosenAuthType(a: CoordAuthentication): (typeof PREFERENCE)[number] | undefined {
  const listed = new Set(a.authType);
  return PREFERENCE.find((m) => listed.has(m) && (
    m === 'OAUTH2_CLIENT_CERT' ? !!a.paramsOauth2ClientCert
      : m === 'OAUTH2_CLIENT_CREDENTIALS' ? !!a.paramsOauth2ClientCredentials
        : !!a.paramsBasic));
}

/** Why the operator's certificate is not presented to `u` (names COORD_CLIENT_CERT_HOSTS). */
export function clientCertHostsMessage(what: string, u: URL, hosts: readonly string[]): string {
  return `OAUTH2_CLIENT_CERT: the operator's client certificate is not presented to the ${what} ${u.protocol}//${u.host}: `
    + (hosts.length ? `it is not in COORD_CLIENT_CERT_HOSTS (${hosts.join(', ').slice(0, 200)})` : 'COORD_CLIENT_CERT_HOSTS is not set, so the certificate is used for no host');
}

/**
 * The operator's TLS material for coordination, from the environment, read
 * per call so a rotated certificate is picked up: COORD_CA_FILE,
 * COORD_CLIENT_CERT + COORD_CLIENT_KEY, scoped to COORD_CLIENT_CERT_HOSTS.
 */
export function operatorCoordTls(env: NodeJS.ProcessEnv = process.env): Pick<CoordTarget, 'ca' | 'clientCert'> {
  const read = (f?: string) => (f && fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : undefined);
  const cert = read(env.COORD_CLIENT_CERT);
  const key = read(env.COORD_CLIENT_KEY);
  let allowedHosts: string[] = [];
  if (cert && key) {
    try {
      allowedHosts = outboundSettings().clientCertHosts;
    } catch (e) {
      throw configError((e as Error).message);
    }
  }
  return { ca: read(env.COORD_CA_FILE), clientCert: cert && key ? { cert, key, allowedHosts } : undefined };
}

function configError(msg: string): CoordinationError {
  return new CoordinationError(msg, { retryable: false, stage: 'config' });
}

function checkCa(ca: string | undefined) {
  if (ca === undefined) return;
  try {
    new X509Certificate(ca);
  } catch {
    throw configError('the custom CA (ca) is not a valid PEM X.509 certificate');
  }
}

/**
 * Decides how a call authenticates, with every local check done here, before
 * any network call: the method is the first of OAUTH2_CLIENT_CERT,
 * OAUTH2_CLIENT_CREDENTIALS, BASIC that authType lists and whose parameters
 * are given.
 */
export function planAuth(t: CoordTarget, apiUrl: URL): AuthPlan {
  checkCa(t.ca);
  const a = t.authentication;
  const baseTls: TlsOptions = t.ca ? { ca: t.ca } : {};
  if (!a) return { kind: 'none', tls: baseTls, secrets: [] };
  const chosen = chosenAuthType(a);
  const endpoint = endpointKey(t.endpoint);
  if (!chosen) {
    throw configError(`authentication lists authType ${a.authType.join(', ')} but none has its parameters (paramsBasic, paramsOauth2ClientCredentials, paramsOauth2ClientCert)`);
  }

  if (chosen === 'BASIC') {
    const { userName, password = '' } = a.paramsBasic!;
    if (!userName) throw configError('BASIC authentication needs paramsBasic.userName');
    if (userName.includes(':')) throw configError('BASIC authentication: paramsBasic.userName must not contain ":"');
    const header = `Basic ${Buffer.from(`${userName}:${password}`).toString('base64')}`;
    return { kind: 'basic', header, tls: baseTls, secrets: [password, header] };
  }

  if (chosen === 'OAUTH2_CLIENT_CREDENTIALS') {
    const { clientId, clientPassword, tokenEndpoint } = a.paramsOauth2ClientCredentials!;
    if (!clientId || clientPassword === undefined || !tokenEndpoint) {
      throw configError('OAUTH2_CLIENT_CREDENTIALS needs paramsOauth2ClientCredentials.clientId, clientPassword and tokenEndpoint');
    }
    const url = parseTokenEndpoint(tokenEndpoint);
    return {
      kind: 'oauth2', mode: chosen, tokenEndpoint: url, clientId, clientSecret: clientPassword,
      cacheKey: cacheKey(chosen, url, clientId, clientPassword, endpoint), tls: baseTls, secrets: [clientPassword],
    };
  }

  // OAUTH2_CLIENT_CERT
  const p = a.paramsOauth2ClientCert!;
  if (!t.clientCert) throw configError('OAUTH2_CLIENT_CERT needs a client certificate and key (clientCert)');
  if (p.certificateRef.type !== 'x5t#S256') {
    throw configError(`OAUTH2_CLIENT_CERT: certificateRef.type ${String(p.certificateRef.type).slice(0, 40)} is not supported (x5t#S256)`);
  }
  const tokenUrl = parseTokenEndpoint(p.tokenEndpoint);
  const hosts = t.clientCert.allowedHosts;
  if (hosts) {
    // the certificate goes only where the operator allowed it; checked before its thumbprint is compared
    const endpointUrl = new URL(endpoint);
    for (const [what, u] of [['coordination endpoint', endpointUrl], ['coordination Location', apiUrl], ['token endpoint', tokenUrl]] as const) {
      if (!hostListAllows(u, hosts)) throw configError(clientCertHostsMessage(what, u, hosts));
    }
  }
  const actual = certificateThumbprint(t.clientCert.cert);
  if (normalizeThumbprint(p.certificateRef.value) !== actual) {
    // the right thumbprint is not told: the caller has to know it
    const given = p.certificateRef.value.replace(/[^\w=+/-]/g, '?').slice(0, 60);
    throw configError(`OAUTH2_CLIENT_CERT: certificateRef.value ${given} does not match the client certificate's x5t#S256 thumbprint; refusing to connect`);
  }
  let keyMatches = false;
  try {
    keyMatches = new X509Certificate(t.clientCert.cert).checkPrivateKey(createPrivateKey(t.clientCert.key));
  } catch {
    throw configError('OAUTH2_CLIENT_CERT: the client key is not a valid unencrypted PEM private key');
  }
  if (!keyMatches) throw configError('OAUTH2_CLIENT_CERT: the client key does not belong to the client certificate');
  const url = tokenUrl;
  if (url.protocol !== 'https:') throw configError(`OAUTH2_CLIENT_CERT: the token endpoint ${showUrl(url)} must be https (mutual TLS)`);
  if (apiUrl.protocol !== 'https:') throw configError(`OAUTH2_CLIENT_CERT: the coordination endpoint ${showUrl(apiUrl)} must be https (mutual TLS)`);
  return {
    kind: 'oauth2', mode: chosen, tokenEndpoint: url, clientId: p.clientId,
    cacheKey: cacheKey(chosen, url, p.clientId, actual, endpoint),
    tls: { ...baseTls, clientCert: t.clientCert }, secrets: [t.clientCert.key],
  };
}

function parseTokenEndpoint(s: string): URL {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw configError('tokenEndpoint is not an absolute URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw configError(`tokenEndpoint ${showUrl(u)} must be http or https`);
  return u;
}

/** The coordination endpoint as the token cache tells endpoints apart: no query, fragment or trailing slash. */
function endpointKey(endpoint: string): string {
  try {
    const u = new URL(endpoint);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    throw configError('the coordination endpoint is not an absolute URL');
  }
}

/** A token is reused only for the same method, token endpoint, client, credential and coordination endpoint. */
function cacheKey(mode: string, url: URL, clientId: string, credential: string, endpoint: string): string {
  return createHash('sha256').update(JSON.stringify([mode, url.href, clientId, credential, endpoint])).digest('hex');
}

// ---- token cache -------------------------------------------------------

interface CachedToken { token: string; expiresAt: number }
const tokens = new Map<string, CachedToken>();
const inflight = new Map<string, Promise<CachedToken>>();

/** Lifetime assumed when the token response has no expires_in. */
const DEFAULT_TOKEN_LIFETIME_S = 300;

/** Forgets every cached token (tests; an operator rotating credentials). */
export function clearTokenCache(): void {
  tokens.clear();
  inflight.clear();
}

/** The access token to use now: the cached one while it is valid, else a fresh one (concurrent callers share one request). */
export async function accessToken(plan: Extract<AuthPlan, { kind: 'oauth2' }>, timeoutMs: number): Promise<string> {
  const now = Date.now();
  const cached = tokens.get(plan.cacheKey);
  if (cached && cached.expiresAt > now) return cached.token;
  let p = inflight.get(plan.cacheKey);
  if (!p) {
    p = requestToken(plan, timeoutMs).finally(() => inflight.delete(plan.cacheKey));
    inflight.set(plan.cacheKey, p);
  }
  const fresh = await p;
  // prune expired entries so a long-lived worker does not accumulate them
  for (const [k, v] of tokens) if (v.expiresAt <= now) tokens.delete(k);
  tokens.set(plan.cacheKey, fresh);
  return fresh.token;
}

/** Drops the cached token after the API refused it (401), unless it was already replaced. */
export function dropToken(plan: Extract<AuthPlan, { kind: 'oauth2' }>, token: string): void {
  if (tokens.get(plan.cacheKey)?.token === token) tokens.delete(plan.cacheKey);
}

async function requestToken(plan: Extract<AuthPlan, { kind: 'oauth2' }>, timeoutMs: number): Promise<CachedToken> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const secrets = [...plan.secrets];
  if (plan.mode === 'OAUTH2_CLIENT_CREDENTIALS') {
    // RFC 6749 §2.3.1: id and secret form-urlencoded, then HTTP Basic
    const basic = Buffer.from(`${formEncode(plan.clientId)}:${formEncode(plan.clientSecret ?? '')}`).toString('base64');
    headers.Authorization = `Basic ${basic}`;
    secrets.push(basic, formEncode(plan.clientSecret ?? ''));
  } else {
    form.set('client_id', plan.clientId);
  }
  const where = `token request to ${showUrl(plan.tokenEndpoint)} (${plan.mode})`;
  let res;
  try {
    res = await exchange({
      method: 'POST', url: plan.tokenEndpoint, headers, body: Buffer.from(form.toString()),
      timeoutMs, tls: plan.tls, stage: 'token', secrets,
    });
  } catch (e) {
    const ce = e as CoordinationError;
    const why = ce.message.replace(/^POST \S+ failed: /, '');
    throw new CoordinationError(scrub(`${where} failed: ${why}`, secrets), { retryable: ce.retryable, stage: 'token', code: ce.code });
  }
  let body: Record<string, unknown> | undefined;
  try { body = JSON.parse(res.text) as Record<string, unknown>; } catch { body = undefined; }
  if (res.status !== 200) {
    const oauthErr = [body?.error, body?.error_description].filter((v) => typeof v === 'string').join(': ');
    const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
    throw new CoordinationError(scrub(`${where} failed: HTTP ${res.status}${oauthErr ? ` ${remoteText(oauthErr, secrets)}` : ''}`, secrets),
      { status: res.status, retryable, stage: 'token' });
  }
  const token = body?.access_token;
  if (typeof token !== 'string' || !token) {
    throw new CoordinationError(`${where}: the response has no access_token`, { status: res.status, retryable: false, stage: 'token' });
  }
  const type = body?.token_type;
  if (type !== undefined && (typeof type !== 'string' || type.toLowerCase() !== 'bearer')) {
    throw new CoordinationError(`${where}: token_type ${String(type).slice(0, 40)} is not supported (Bearer)`, { status: res.status, retryable: false, stage: 'token' });
  }
  const raw = Number(body?.expires_in);
  const lifetimeMs = (Number.isFinite(raw) && raw > 0 ? raw : DEFAULT_TOKEN_LIFETIME_S) * 1000;
  const margin = Math.min(60_000, lifetimeMs / 10);
  return { token, expiresAt: Date.now() + lifetimeMs - margin };
}

function formEncode(s: string): string {
  return new URLSearchParams({ x: s }).toString().slice(2);
}
