/**
 * A small Kubernetes API client over node:https for the simulated node
 * components (kubelet, controller-manager, scheduler, kubeadm, kubectl): real
 * TLS to the real kube-apiserver with the credentials a kubeconfig names, so a
 * certificate from the wrong CA gets the real 401 and a server certificate the
 * client's CA does not trust fails the handshake.
 */
import https from 'node:https';
import { isIP } from 'node:net';
import tls from 'node:tls';
import type { KubeCredentials } from './kubeconfig';

export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Status.reason of the API (NotFound, AlreadyExists, Conflict, Unauthorized, ...), or a network error code. */
    readonly reason: string,
    readonly url: string,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  /** Maps the server's host name to the address to dial (a simulated host's view of names); undefined: no such host. */
  resolve?: (hostname: string) => string | undefined;
  timeoutMs?: number;
}

const NETWORK_MESSAGES: Record<string, (dial: string) => string> = {
  ECONNREFUSED: (dial) => `dial tcp ${dial}: connect: connection refused`,
  ETIMEDOUT: (dial) => `dial tcp ${dial}: i/o timeout`,
  EHOSTUNREACH: (dial) => `dial tcp ${dial}: connect: no route to host`,
  ECONNRESET: () => 'read: connection reset by peer',
};

function tlsMessage(err: NodeJS.ErrnoException, hostname: string): string | undefined {
  switch (err.code) {
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'DEPTH_ZERO_SELF_SIGNED_CERT': case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY': case 'CERT_SIGNATURE_FAILURE':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${hostname}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return undefined;
  }
}

export class KubeClient {
  private readonly agent: https.Agent;
  private readonly base: URL;

  constructor(
    readonly creds: KubeCredentials,
    private readonly opts: ClientOptions = {},
  ) {
    this.base = new URL(creds.server);
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: creds.ca, cert: creds.cert, key: creds.key, rejectUnauthorized: !creds.insecure });
  }

  async request<T = any>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const hostname = this.base.hostname.replace(/^\[|\]$/g, '');
    const dialHost = this.opts.resolve ? this.opts.resolve(hostname) : hostname;
    const port = Number(this.base.port || 443);
    const url = `${this.base.origin}${path}`;
    // the simulated network is loopback only: nothing else is dialled
    if (dialHost === undefined) return Promise.reject(new KubeApiError(0, `Get "${url}": dial tcp: lookup ${hostname}: no such host`, 'ENOTFOUND', url));
    if (!/^127\./.test(dialHost)) return Promise.reject(new KubeApiError(0, `Get "${url}": dial tcp ${dialHost}:${port}: connect: no route to host`, 'EHOSTUNREACH', url));
    const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'vimsim-kube/v1.37.2' };
    if (payload) Object.assign(headers, { 'Content-Type': contentType, 'Content-Length': String(payload.length) });
    if (this.creds.token) headers.Authorization = `Bearer ${this.creds.token}`;
    return new Promise<T>((resolve, reject) => {
      const req = https.request(
        {
          method, host: dialHost, port, path, headers, agent: this.agent,
          // SNI and the certificate's name check use the name in the kubeconfig, not the dialled address
          servername: isIP(hostname) ? undefined : hostname,
          checkServerIdentity: (_host, cert) => tls.checkServerIdentity(hostname, cert),
          timeout: this.opts.timeoutMs ?? 10_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: any = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              /* not JSON */
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve(parsed as T);
            const reason = (parsed && typeof parsed === 'object' && parsed.reason) || (status === 401 ? 'Unauthorized' : `HTTP${status}`);
            const message = (parsed && typeof parsed === 'object' && parsed.message) || (status === 401 ? 'Unauthorized' : text.trim() || `HTTP ${status}`);
            reject(new KubeApiError(status, message, reason, url));
          });
          res.on('error', (err) => reject(new KubeApiError(0, err.message, 'Network', url)));
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      req.on('error', (err: NodeJS.ErrnoException) => {
        const dial = `${dialHost}:${port}`;
        const message = tlsMessage(err, hostname) ?? NETWORK_MESSAGES[err.code ?? '']?.(dial) ?? err.message;
        reject(new KubeApiError(0, `Get "${url}": ${message}`, err.code ?? 'Network', url));
      });
      if (payload) req.write(payload);
      req.end();
    });
  }

  get<T = any>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T = any>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  put<T = any>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, body);
  }

  /** Strategic merge patch (what kubectl and the kubelet send for nodes). */
  patch<T = any>(path: string, body: unknown, type: 'strategic' | 'merge' = 'strategic'): Promise<T> {
    return this.request<T>('PATCH', path, body, type === 'strategic' ? 'application/strategic-merge-patch+json' : 'application/merge-patch+json');
  }

  delete<T = any>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  /** Creates an object; one that exists already is left as it is (kubeadm's CreateOrRetain) or replaced (update). */
  async apply(collection: string, obj: { metadata: { name: string; [k: string]: unknown }; [k: string]: unknown }, mode: 'retain' | 'update' = 'update'): Promise<void> {
    try {
      await this.post(collection, obj);
    } catch (err) {
      if (!(err instanceof KubeApiError) || err.reason !== 'AlreadyExists') throw err;
      if (mode === 'retain') return;
      const current = await this.get<{ metadata: { resourceVersion: string } }>(`${collection}/${obj.metadata.name}`);
      await this.put(`${collection}/${obj.metadata.name}`, { ...obj, metadata: { ...obj.metadata, resourceVersion: current.metadata.resourceVersion } });
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 404;
}

/** The RFC 3339 time with microseconds the API uses for MicroTime fields (Lease renewTime). */
export function microTime(d = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** RFC 3339 seconds (metav1.Time). */
export function metaTime(d = new Date()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
