/**
 * Minimal JSON-over-HTTP for the OpenStack clients: per-request deadline,
 * optional custom CA, redirects not followed (Heat answers 302 for lookups).
 */
import http from 'node:http';
import https from 'node:https';

export interface HttpResponse { status: number; headers: http.IncomingHttpHeaders; body: unknown; text: string }

export class OpenStackHttpError extends Error {
  constructor(readonly status: number, readonly method: string, readonly url: string, readonly detail: string) {
    super(`${method} ${url} -> ${status}: ${detail}`);
    this.name = 'OpenStackHttpError';
  }
}

export interface RequestOptions { headers?: Record<string, string>; body?: unknown; timeoutMs?: number; ca?: string }

/**
 * A keep-alive socket the server has just closed (Keystone under gunicorn
 * drops idle ones after 2 s) fails the request before the server saw it; as
 * Node's documentation advises, such a request is sent once more.
 */
export async function request(method: string, url: string, o: RequestOptions = {}): Promise<HttpResponse> {
  try {
    return await requestOnce(method, url, o);
  } catch (e) {
    if ((e as StaleSocketError).staleSocket) return requestOnce(method, url, o);
    throw e;
  }
}

type StaleSocketError = Error & { staleSocket?: boolean; code?: string };

function requestOnce(method: string, url: string, o: RequestOptions): Promise<HttpResponse> {
  const u = new URL(url);
  const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
  const lib = u.protocol === 'https:' ? https : http;
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
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = undefined;
          if (text && /json/.test(String(res.headers['content-type']))) {
            try { body = JSON.parse(text); } catch { body = undefined; }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${u.origin}${u.pathname} timed out`)));
    req.on('error', (e: StaleSocketError) => {
      if (req.reusedSocket && e.code === 'ECONNRESET') e.staleSocket = true;
      reject(e);
    });
    if (payload) req.write(payload);
    req.end();
  });
}

/** The human part of an OpenStack error body (Heat, Keystone or plain text). */
export function errorDetail(r: HttpResponse): string {
  const b = r.body as Record<string, any> | undefined;
  const msg = b?.error?.message ?? b?.explanation ?? b?.message ?? r.text;
  return String(msg || `HTTP ${r.status}`).slice(0, 2000);
}
