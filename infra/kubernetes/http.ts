/**
 * HTTPS to one cluster's Kubernetes API: the cluster CA as the only trust
 * anchor, a client certificate or a bearer token, every URL through the
 * outbound policy (common/outbound.ts: scheme, no credentials in the URL,
 * allow/deny lists on the host and on every address it resolves to, the
 * socket connecting to the checked address), an overall deadline per
 * request, response bodies capped, and remote error text only as a short
 * masked excerpt.
 */
import { observedCall } from '../../common/observed-call';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { checkOutboundUrl, excerpt, outboundUrlProblem, policyLookup, readCapped, showUrl } from '../../common/outbound';

export type KubeCredentials = { clientCertPem: string; clientKeyPem: string } | { token: string };

export interface KubeEndpoint {
  /** The API endpoint, e.g. https://10.0.0.5:6443. */
  server: string;
  /** The cluster CA (PEM): the only certificate the API server's is checked against. */
  caPem: string;
  credentials: KubeCredentials;
  /** Per-request deadline (default 30 s). */
  timeoutMs?: number;
  /** Response body cap in bytes (default 8 MiB; lists are read in pages well under it). */
  maxBytes?: number;
}

export const KUBE_PURPOSE = 'Kubernetes API endpoint';
export const DEFAULT_KUBE_TIMEOUT_MS = 30_000;
export const DEFAULT_KUBE_MAX_BYTES = 8 * 1024 * 1024;

/** Why `server` cannot be a cluster's API endpoint, or undefined (the up-front check an API or activity can make). */
export function kubeEndpointProblem(server: string): string | undefined {
  const why = outboundUrlProblem(server, { purpose: KUBE_PURPOSE, base: true });
  if (why) return why;
  return new URL(server).protocol === 'https:' ? undefined : `the ${KUBE_PURPOSE} ${showUrl(server)} must be https`;
}

/** A Kubernetes API answer other than the ones the caller expects. */
export class KubeApiError extends Error {
  constructor(readonly status: number, readonly method: string, readonly path: string, readonly reason: string | undefined, readonly detail: string) {
    super(`${method} ${path} -> ${status}${reason ? ` ${reason}` : ''}: ${detail}`);
    this.name = 'KubeApiError';
  }
}

export interface KubeResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The JSON body, when the response is JSON. */
  body: unknown;
}

export interface KubeRequest {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Content type of the body (default application/json; patches name theirs). */
  contentType?: string;
  timeoutMs?: number;
}

/** metav1.Status, the body of every API error. */
const statusSchema = z.object({ message: z.string().optional(), reason: z.string().optional() });

type StaleSocketError = Error & { staleSocket?: boolean; code?: string };

export class KubeHttp {
  private agent: https.Agent | undefined;
  private readonly token: string | undefined;

  constructor(private readonly endpoint: KubeEndpoint) {
    this.token = 'token' in endpoint.credentials ? endpoint.credentials.token : undefined;
  }

  /** The agent holds the TLS material; idle keep-alive sockets do not keep the process alive (Node unrefs them). */
  private tlsAgent(): https.Agent {
    this.agent ??= new https.Agent({ keepAlive: true, maxSockets: 8, ...this.tls() });
    return this.agent;
  }

  private tls(): https.AgentOptions {
    const c = this.endpoint.credentials;
    return { ca: this.endpoint.caPem, ...('clientCertPem' in c ? { cert: c.clientCertPem, key: c.clientKeyPem } : {}) };
  }

  /** Drops the pooled connections. */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }

  /** An error for `r`, its detail the Status message as a masked excerpt (the bearer token masked too). */
  error(method: string, path: string, r: KubeResponse): KubeApiError {
    const st = statusSchema.safeParse(r.body);
    const msg = st.success && st.data.message ? st.data.message : r.text;
    return new KubeApiError(r.status, method, path, st.success ? st.data.reason : undefined, excerpt(msg, [this.token]) || `HTTP ${r.status}`);
  }

  /**
   * One request. A keep-alive socket the server closed just before it was
   * reused fails before the server saw the request: such a request is sent
   * once more (Node's documented advice), on a new connection: the pool's
   * other idle sockets may have been dropped too.
   */
  request(method: string, path: string, o: KubeRequest = {}): Promise<KubeResponse> {
    return observedCall('kubernetes', method, async () => {
      try {
        return await this.requestOnce(method, path, o, false);
      } catch (e) {
        if ((e as StaleSocketError).staleSocket) return this.requestOnce(method, path, o, true);
        throw e;
      }
    });
  }

  private url(path: string, query: KubeRequest['query']): URL {
    const base = checkOutboundUrl(this.endpoint.server, { purpose: KUBE_PURPOSE, base: true });
    if (base.protocol !== 'https:') throw new Error(`the ${KUBE_PURPOSE} ${showUrl(base)} must be https`);
    const u = new URL(base.href);
    u.pathname = `${base.pathname.replace(/\/+$/, '')}${path}`;
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u;
  }

  private requestOnce(method: string, path: string, o: KubeRequest, newConnection: boolean): Promise<KubeResponse> {
    let u: URL;
    try {
      u = this.url(path, o.query);
    } catch (e) {
      return Promise.reject(e); // nothing is sent to a refused URL
    }
    const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
    const limit = this.endpoint.maxBytes ?? DEFAULT_KUBE_MAX_BYTES;
    const timeoutMs = o.timeoutMs ?? this.endpoint.timeoutMs ?? DEFAULT_KUBE_TIMEOUT_MS;
    const where = `${method} ${showUrl(u)}`;
    return new Promise((resolve, reject) => {
      const req = https.request(u, {
        method,
        ...(newConnection ? { agent: false, ...this.tls() } : { agent: this.tlsAgent() }),
        headers: {
          accept: 'application/json',
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          ...(payload ? { 'content-type': o.contentType ?? 'application/json', 'content-length': String(payload.length) } : {}),
        },
        timeout: timeoutMs,
        lookup: policyLookup(KUBE_PURPOSE) as unknown as https.RequestOptions['lookup'],
      }, (res) => {
        readCapped(res, limit, where).then((buf) => {
          clearTimeout(deadline);
          const text = buf.toString('utf8');
          let body: unknown;
          if (text && /json/.test(String(res.headers['content-type']))) {
            try { body = JSON.parse(text); } catch { body = undefined; }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        }, (e) => {
          clearTimeout(deadline);
          req.destroy();
          reject(e);
        });
      });
      // `timeout` is per socket inactivity; the deadline bounds the whole exchange.
      const deadline = setTimeout(() => req.destroy(new Error(`${where} timed out after ${timeoutMs} ms`)), timeoutMs);
      req.on('timeout', () => req.destroy(new Error(`${where} timed out after ${timeoutMs} ms`)));
      req.on('error', (e: StaleSocketError) => {
        clearTimeout(deadline);
        if (req.reusedSocket && e.code === 'ECONNRESET') e.staleSocket = true;
        reject(e);
      });
      if (payload) req.write(payload);
      req.end();
    });
  }
}
