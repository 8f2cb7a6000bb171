/**
 * Minimal JSON-over-HTTP for the OpenStack clients: per-request deadline,
 * optional custom CA, redirects not followed (Heat answers 302 for lookups),
 * every URL through the outbound policy (common/outbound.ts: scheme, no
 * credentials in the URL, allow/deny lists on the host and on every address
 * it resolves to, the socket connecting to the checked address), response
 * bodies capped, and remote error text only as a short masked excerpt.
 */
import http from 'node:http';
import https from 'node:https';
import { outboundTarget } from '../../common/metrics';
import { observedCall } from '../../common/observed-call';
import { checkOutboundUrl, excerpt, MAX_BODY_SETTING, outboundSettings, policyLookup, readCapped, showUrl } from '../../common/outbound';

export interface HttpResponse { status: number; headers: http.IncomingHttpHeaders; body: unknown; text: string }

export class OpenStackHttpError extends Error {
  constructor(readonly status: number, readonly method: string, readonly url: string, readonly detail: string) {
    super(`${method} ${url} -> ${status}: ${detail}`);
    this.name = 'OpenStackHttpError';
  }
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs?: number;
  ca?: string;
  /** Response body cap in bytes (default: the Keystone cap, 8 MiB unless OUTBOUND_MAX_BODY_KEYSTONE says otherwise). */
  maxBytes?: number;
  /** The variable that sets maxBytes, named in the error when the cap is hit. */
  maxBytesSetting?: string;
  /** What the URL is, for the outbound policy's messages ("VIM auth_url", "orchestration endpoint"...). */
  purpose?: string;
}

/**
 * A keep-alive socket the server has just closed (Keystone under gunicorn
 * drops idle ones after 2 s) fails the request before the server saw it; as
 * Node's documentation advises, such a request is sent once more, on a new
 * connection: the pool's other idle sockets may have been dropped too.
 */
export function request(method: string, url: string, o: RequestOptions = {}): Promise<HttpResponse> {
  return observedCall(outboundTarget(o.purpose ?? 'OpenStack endpoint'), method, async () => {
    try {
      return await requestOnce(method, url, o, false);
    } catch (e) {
      if ((e as StaleSocketError).staleSocket) return requestOnce(method, url, o, true);
      throw e;
    }
  });
}

type StaleSocketError = Error & { staleSocket?: boolean; code?: string };

function requestOnce(method: string, url: string, o: RequestOptions, newConnection: boolean): Promise<HttpResponse> {
  const purpose = o.purpose ?? 'OpenStack endpoint';
  let u: URL;
  let limit: number;
  try {
    u = checkOutboundUrl(url, { purpose }); // nothing is sent to a refused URL
    limit = o.maxBytes ?? outboundSettings().maxBody.keystone;
  } catch (e) {
    return Promise.reject(e);
  }
  const setting = o.maxBytesSetting ?? (o.maxBytes === undefined ? MAX_BODY_SETTING.keystone : undefined);
  const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
  const lib = u.protocol === 'https:' ? https : http;
  const where = `${method} ${showUrl(u)}`;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      u,
      {
        method,
        headers: {
          accept: 'application/json',
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          ...o.headers,
        },
        ...(u.protocol === 'https:' && o.ca ? { ca: o.ca } : {}),
        timeout: o.timeoutMs ?? 30_000,
        ...(newConnection ? { agent: false } : {}),
        lookup: policyLookup(purpose) as unknown as http.RequestOptions['lookup'],
      },
      (res) => {
        readCapped(res, limit, where, setting).then((buf) => {
          const text = buf.toString('utf8');
          let body: unknown = undefined;
          if (text && /json/.test(String(res.headers['content-type']))) {
            try { body = JSON.parse(text); } catch { body = undefined; }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        }, (e) => {
          req.destroy();
          reject(e);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${where} timed out`)));
    req.on('error', (e: StaleSocketError) => {
      if (req.reusedSocket && e.code === 'ECONNRESET') e.staleSocket = true;
      reject(e);
    });
    if (payload) req.write(payload);
    req.end();
  });
}

/**
 * The human part of an OpenStack error body (Heat, Keystone or plain text),
 * as a short sanitized excerpt: at most 200 characters, control characters
 * removed, `secrets` (the request's password or token) and anything that
 * looks like a credential masked.
 */
export function errorDetail(r: HttpResponse, secrets: readonly (string | undefined)[] = []): string {
  const b = r.body as Record<string, any> | undefined;
  const msg = b?.error?.message ?? b?.explanation ?? b?.message ?? r.text;
  return excerpt(typeof msg === 'string' ? msg : JSON.stringify(msg), secrets) || `HTTP ${r.status}`;
}
