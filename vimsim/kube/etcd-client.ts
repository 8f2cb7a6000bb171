/**
 * etcd's v3 cluster API as kubeadm and etcdctl use it, spoken to the real
 * etcd members of the simulated masters through etcd's own JSON gateway
 * (`POST /v3/cluster/member/*` on the client port) with the client
 * certificate of the host's files, so a wrong CA or certificate fails the
 * way it would. Member ids are uint64 decimals (as the gateway writes them).
 */
import https from 'node:https';

export interface EtcdTls {
  ca: string;
  cert: string;
  key: string;
}

export interface EtcdMember {
  ID: string;
  name?: string;
  peerURLs: string[];
  clientURLs?: string[];
  isLearner?: boolean;
}

export class EtcdError extends Error {
  constructor(
    message: string,
    /** gRPC code of etcd's answer (9 FailedPrecondition: "can only promote a learner member which is in sync with leader"); 14 when nothing answered. */
    readonly code: number,
  ) {
    super(message);
  }
}

const ONLY_LOOPBACK = /^https:\/\/127\.\d+\.\d+\.\d+:\d+$/;

export class EtcdClient {
  constructor(
    /** Client URLs to try in order (https://127.x.y.z:2379): the first that answers serves the call. */
    private readonly endpoints: string[],
    private readonly tls: EtcdTls,
    private readonly timeoutMs = 5_000,
  ) {}

  private call<T>(endpoint: string, path: string, body: unknown): Promise<T> {
    // the simulated network is loopback only
    if (!ONLY_LOOPBACK.test(endpoint)) return Promise.reject(new EtcdError(`dial tcp ${endpoint.replace(/^https:\/\//, '')}: connect: no route to host`, 14));
    const url = new URL(path, endpoint);
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise<T>((resolve, reject) => {
      const req = https.request(
        { method: 'POST', host: url.hostname, port: url.port, path: url.pathname, ca: this.tls.ca, cert: this.tls.cert, key: this.tls.key, agent: false, timeout: this.timeoutMs, headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            let parsed: { error?: string; message?: string; code?: number } & Record<string, unknown>;
            try {
              parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof parsed;
            } catch {
              return reject(new EtcdError(`unexpected answer from ${endpoint} (HTTP ${res.statusCode})`, 2));
            }
            if (res.statusCode === 200 && !parsed.error) return resolve(parsed as T);
            reject(new EtcdError(parsed.message ?? parsed.error ?? `HTTP ${res.statusCode}`, parsed.code ?? 2));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
      req.on('error', (err: NodeJS.ErrnoException) => {
        const dial = `${url.hostname}:${url.port}`;
        reject(new EtcdError(err.code === 'ECONNREFUSED' ? `dial tcp ${dial}: connect: connection refused` : err.message, 14));
      });
      req.end(payload);
    });
  }

  /** Tries the endpoints in turn; an answer of etcd's (not a network failure) ends the search. */
  private async any<T>(path: string, body: unknown): Promise<T> {
    let last: unknown = new EtcdError('no etcd endpoints', 14);
    for (const ep of this.endpoints) {
      try {
        return await this.call<T>(ep, path, body);
      } catch (err) {
        last = err;
        if (!(err instanceof EtcdError) || err.code !== 14) throw err;
      }
    }
    throw last;
  }

  async members(): Promise<EtcdMember[]> {
    return (await this.any<{ members?: EtcdMember[] }>('/v3/cluster/member/list', {})).members ?? [];
  }

  /** Adds a member (a learner when asked); answers the new member and the list including it. */
  async add(peerURL: string, learner: boolean): Promise<{ member: EtcdMember; members: EtcdMember[] }> {
    return this.any('/v3/cluster/member/add', { peerURLs: [peerURL], isLearner: learner });
  }

  async promote(id: string): Promise<void> {
    await this.any('/v3/cluster/member/promote', { ID: id });
  }

  async remove(id: string): Promise<void> {
    await this.any('/v3/cluster/member/remove', { ID: id });
  }

  /** Whether one endpoint's member serves reads (a quorum read of a missing key). */
  async healthy(endpoint: string): Promise<boolean> {
    try {
      await this.call(endpoint, '/v3/kv/range', { key: Buffer.from('health').toString('base64') });
      return true;
    } catch {
      return false;
    }
  }
}

/** The uint64 id as etcdctl prints it (hex). */
export function hexId(id: string): string {
  return BigInt(id).toString(16);
}
