/**
 * One HTTP(S) exchange for the coordination client: a deadline covering
 * connect + response, an optional custom CA and client certificate (mutual
 * TLS), no redirects, no keep-alive pool (each call is its own connection, so
 * a changed CA or certificate is never served from a pooled TLS session),
 * the outbound policy on the URL and on every address its host resolves to
 * (common/outbound.ts; the socket connects to the checked address), a
 * response cap (OUTBOUND_MAX_BODY_COORD, 1 MiB), and errors that never carry
 * a secret.
 */
import { outboundTarget } from '../common/metrics';
import { observedCall } from '../common/observed-call';
import http from 'node:http';
import https from 'node:https';
import {
  excerpt, MAX_BODY_SETTING, outboundSettings, OutboundRefused, outboundUrlProblem, policyLookup, readCapped,
  ResponseTooLarge, showUrl,
} from '../common/outbound';

export { showUrl } from '../common/outbound';

/** Why a coordination exchange did not give an outcome. */
export class CoordinationError extends Error {
  /** HTTP status of the answer that failed, when there was one. */
  status?: number;
  /** true: the same call may succeed later (network, timeout, 5xx); false: it will not (4xx, configuration). */
  retryable: boolean;
  /** Where it failed: the coordination API itself, the OAuth 2.0 token endpoint, or the client's own configuration. */
  stage: 'api' | 'token' | 'config';
  /** Server's Retry-After, in ms, when a retryable answer carried one. */
  retryAfterMs?: number;
  /** Node's error code of a transport failure (ECONNREFUSED, SELF_SIGNED_CERT_IN_CHAIN, ...). */
  code?: string;

  constructor(message: string, o: { status?: number; retryable: boolean; stage?: CoordinationError['stage']; retryAfterMs?: number; code?: string }) {
    super(message);
    this.name = 'CoordinationError';
    if (o.status !== undefined) this.status = o.status;
    this.retryable = o.retryable;
    this.stage = o.stage ?? 'api';
    if (o.retryAfterMs !== undefined) this.retryAfterMs = o.retryAfterMs;
    if (o.code !== undefined) this.code = o.code;
  }
}

export interface TlsOptions {
  /** PEM of the CA(s) that sign the server's certificate (replaces the default roots). */
  ca?: string;
  /** PEM client certificate and key for mutual TLS. */
  clientCert?: { cert: string; key: string };
}

export interface Exchange {
  method: 'GET' | 'POST';
  url: URL;
  headers?: Record<string, string>;
  body?: Buffer;
  timeoutMs: number;
  tls?: TlsOptions;
  stage: CoordinationError['stage'];
  /** Strings to mask in any message built from this exchange (passwords, tokens...). */
  secrets: string[];
  /** What the URL is, for the outbound policy's messages (default from the stage). */
  purpose?: string;
}

export interface ExchangeResponse { status: number; headers: http.IncomingHttpHeaders; text: string }

/** TLS verification failures: a configuration problem (CA, host name), not a transient one. */
const TLS_VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE', 'CERT_UNTRUSTED', 'CERT_REJECTED', 'INVALID_CA', 'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

/** A remote server's text (error detail) as it may appear in a message: a short masked excerpt (common/outbound.ts). */
export function remoteText(text: string, secrets: string[]): string {
  return excerpt(text, secrets);
}

/** Masks every secret (and its base64 form, as in a Basic header) in s. */
export function scrub(s: string, secrets: string[]): string {
  let out = s;
  for (const secret of secrets) {
    if (!secret || secret.length < 3) continue;
    for (const form of [secret, Buffer.from(secret).toString('base64')]) out = out.split(form).join('****');
  }
  return out;
}

/** What the URL is, for the outbound policy's messages and the call's metrics target. */
const purposeOf = (x: Exchange) => x.purpose ?? (x.stage === 'token' ? 'OAuth 2.0 token endpoint' : 'coordination endpoint');

export function exchange(x: Exchange): Promise<ExchangeResponse> {
  return observedCall(outboundTarget(purposeOf(x)), x.method, () => exchangeOnce(x));
}

function exchangeOnce(x: Exchange): Promise<ExchangeResponse> {
  const { url } = x;
  const where = `${x.method} ${showUrl(url)}`;
  const isHttps = url.protocol === 'https:';
  if (!isHttps && url.protocol !== 'http:') {
    return Promise.reject(new CoordinationError(`${where}: only http and https URLs are supported`, { retryable: false, stage: 'config' }));
  }
  const purpose = purposeOf(x);
  const refused = outboundUrlProblem(url, { purpose });
  if (refused) return Promise.reject(new CoordinationError(scrub(refused, x.secrets), { retryable: false, stage: 'config', code: 'EOUTBOUND' }));
  let limit: number;
  try {
    limit = outboundSettings().maxBody.coord;
  } catch (e) {
    return Promise.reject(new CoordinationError((e as Error).message, { retryable: false, stage: 'config' }));
  }
  const lib = isHttps ? https : http;
  const options: https.RequestOptions = {
    method: x.method,
    agent: false,
    lookup: policyLookup(purpose) as unknown as https.RequestOptions['lookup'],
    headers: {
      Accept: 'application/json',
      ...(x.body ? { 'Content-Length': String(x.body.length) } : x.method === 'POST' ? { 'Content-Length': '0' } : {}),
      ...x.headers,
    },
  };
  if (isHttps) {
    if (x.tls?.ca) options.ca = x.tls.ca;
    if (x.tls?.clientCert) { options.cert = x.tls.clientCert.cert; options.key = x.tls.clientCert.key; }
  }

  return new Promise<ExchangeResponse>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let req: http.ClientRequest | undefined;
    const fail = (err: Error & { code?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err instanceof CoordinationError) return reject(err);
      reject(transportError(where, err, x));
    };
    try {
      req = lib.request(url, options, (res) => {
        readCapped(res, limit, where, MAX_BODY_SETTING.coord).then((buf) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: buf.toString('utf8') });
        }, (e: Error & { code?: string }) => {
          if (e instanceof ResponseTooLarge) {
            fail(new CoordinationError(e.message, { status: res.statusCode, retryable: false, stage: x.stage, code: e.code }));
          } else {
            fail(e);
          }
          req?.destroy();
        });
      });
    } catch (e) {
      // invalid PEM in ca/cert/key is thrown synchronously by tls.createSecureContext
      return reject(transportError(where, e as Error & { code?: string }, x));
    }
    const r = req;
    timer = setTimeout(() => {
      const e = Object.assign(new Error(`timed out after ${x.timeoutMs} ms`), { code: 'ETIMEDOUT' });
      fail(e);
      r.destroy(e);
    }, x.timeoutMs);
    r.on('error', fail);
    if (x.body) r.write(x.body);
    r.end();
  });
}

function transportError(where: string, err: Error & { code?: string }, x: Exchange): CoordinationError {
  if (err instanceof OutboundRefused) {
    // a host name whose addresses the policy refuses: nothing was sent
    return new CoordinationError(scrub(`${where}: ${err.message}`, x.secrets), { retryable: false, stage: 'config', code: err.code });
  }
  const code = err.code;
  const tlsVerify = code !== undefined && TLS_VERIFY_CODES.has(code);
  const badPem = !tlsVerify && (code?.startsWith('ERR_OSSL') ?? false);
  let hint = '';
  if (tlsVerify) {
    hint = x.tls?.ca
      ? ' (the server certificate is not trusted by the configured CA or does not match the host)'
      : ' (the server certificate is not trusted: give the CA of the coordination server)';
  } else if (badPem) {
    hint = ' (invalid PEM in the CA, client certificate or key)';
  }
  const msg = scrub(`${where} failed: ${err.message}${code && !err.message.includes(code) ? ` [${code}]` : ''}${hint}`, x.secrets);
  return new CoordinationError(msg, {
    retryable: !(tlsVerify || badPem),
    stage: x.stage,
    code,
  });
}
