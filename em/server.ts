/**
 * The reference EM: an ETSI NFV-SOL 002 v3.6.1 VNF LCM coordination server
 * (API version 1.0.0, /lcmcoord/v1) whose answers are scripted by a
 * Behaviour (em/behaviour.ts), with the authentication a VNFM may be
 * configured for (HTTP Basic, OAuth 2.0 client credentials by secret or by
 * mutual TLS, mutual TLS) and an unauthenticated admin API (/em) for tests,
 * benchmarks and demos.
 *
 *   POST /lcmcoord/v1/coordinations              LcmCoordRequest -> 201 | 202 | 503 | 400
 *   GET  /lcmcoord/v1/coordinations/{id}         200 LcmCoord | 202 + Retry-After | 404
 *   POST /lcmcoord/v1/coordinations/{id}/cancel  202 | 409 (decided) | 404
 *   POST /token                                  OAuth 2.0 token endpoint (client_credentials)
 *   GET|POST /notifications                      SOL003 notification endpoint: test GET 204, POST 204 (em/notifications.ts)
 *   GET  /em/coordinations, /em/requests, /em/notifications, /em/behaviour; POST /em/behaviour
 *   GET  /healthz
 */
import http, { STATUS_CODES } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import pino, { type Logger } from 'pino';
import { COORD_API_VERSION, COORD_BASE, LcmCoordRequest } from '../model/coordination';
import {
  authScheme, basicClientCandidates, type BasicCredentials, type OAuth2Client, parseBasic, parseBearer,
  peerCertificateX5t, safeEqual, TokenService,
} from './auth';
import { type Behaviour, BehaviourSchema, DEFAULT_BEHAVIOUR, describeIssues } from './behaviour';
import { Coordinations, type RecordedCoordination } from './coordinations';
import { NotificationInbox, type NotificationBehaviour, type ReceivedNotification } from './notifications';

export type { Behaviour } from './behaviour';
export type { RecordedCoordination } from './coordinations';
export type { BasicCredentials, OAuth2Client } from './auth';
export type { NotificationBehaviour, ReceivedNotification } from './notifications';

export const DEFAULT_PORT = 6789;
export const DEFAULT_TOKEN_TTL_SEC = 3600;
const REALM = 'em';

export interface EmTlsOptions {
  /** PEM server certificate (chain) and key. */
  cert: string | Buffer;
  key: string | Buffer;
  /** PEM CA(s) trusted for client certificates. */
  ca?: string | Buffer;
  /** true: every connection must present a client certificate signed by `ca` (mutual TLS); others are refused in the handshake. */
  requestClientCert?: boolean;
}

export interface EmOptions {
  /** default 127.0.0.1 */
  host?: string;
  /** default 0: a free port */
  port?: number;
  /** default { mode: 'sync', result: 'CONTINUE' } */
  behaviour?: Behaviour;
  auth?: {
    /** Coordination endpoints accept HTTP Basic with these credentials. */
    basic?: BasicCredentials;
    /** Coordination endpoints accept Bearer tokens issued by POST /token to these clients. */
    oauth2?: { clients: OAuth2Client[]; tokenTtlSec?: number };
    /** Serve HTTPS; with requestClientCert, mutual TLS. */
    tls?: EmTlsOptions;
  };
}

/** One HTTP request the EM answered (admin and health requests left out). Never holds credentials. */
export interface RecordedRequest {
  at: string;
  method: string;
  /** path without query */
  path: string;
  /** scheme of the Authorization header ("Basic", "Bearer"), if any */
  authorization?: string;
  /** the request's Version header */
  version?: string;
  /** x5t#S256 of the trusted TLS client certificate, if any */
  clientCertificate?: string;
  status: number;
}

export interface Em {
  /** e.g. http://127.0.0.1:6789 (https:// with tls) */
  url: string;
  /** url + '/token' */
  tokenEndpoint: string;
  coordinations(): RecordedCoordination[];
  requests(): RecordedRequest[];
  behaviour(): Behaviour;
  /** Notifications POSTed to `<url>/notifications` (the SOL003 notification endpoint), every copy. */
  notifications(): ReceivedNotification[];
  /** How the notification endpoint answers (em/notifications.ts). */
  setNotificationBehaviour(b: NotificationBehaviour): void;
  /** Validated (throws on an invalid behaviour); resets the busy counters. */
  setBehaviour(b: Behaviour): void;
  /** Decides every coordination still pending, or one op occ's (an EM operator releasing what it held); returns how many. */
  decidePending(result: 'CONTINUE' | 'ABORT', vnfLcmOpOccId?: string): number;
  close(): Promise<void>;
}

function defaultLogger(): Logger {
  const level = process.env.EM_LOG_LEVEL ?? (process.env.JEST_WORKER_ID ? 'warn' : 'info');
  return pino({ name: 'em', level });
}

/** ProblemDetails (SOL013) response. */
function problem(res: Response, status: number, detail: string, extra: Record<string, unknown> = {}): void {
  res
    .status(status)
    .type('application/problem+json')
    .send(JSON.stringify({ type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, ...extra }));
}

function oauthError(res: Response, status: number, error: string, description: string): void {
  if (status === 401) res.append('WWW-Authenticate', `Basic realm="${REALM}"`);
  res.status(status).json({ error, error_description: description });
}

const VERSION_RE = /^(\d+)(?:\.(\d+)(?:\.(\d+))?)?$/;

export async function startEm(opts: EmOptions = {}, logger: Logger = defaultLogger()): Promise<Em> {
  let current: Behaviour = BehaviourSchema.parse(opts.behaviour ?? DEFAULT_BEHAVIOUR);
  const store = new Coordinations();
  const inbox = new NotificationInbox();
  const recorded: RecordedRequest[] = [];
  const basic = opts.auth?.basic;
  const oauth2 = opts.auth?.oauth2;
  const tls = opts.auth?.tls;
  const tokens = oauth2 ? new TokenService(oauth2.tokenTtlSec ?? DEFAULT_TOKEN_TTL_SEC) : undefined;
  const scheme = tls ? 'https' : 'http';
  let url = '';

  /** scheme://host:port as the client addressed us (Location headers, _links.self). */
  const baseOf = (req: Request): string => {
    const host = req.headers.host;
    return host && /^[A-Za-z0-9.\-]+(:\d+)?$|^\[[0-9A-Fa-f:.]+\](:\d+)?$/.test(host) ? `${scheme}://${host}` : url;
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use((req, res, next) => {
    if (req.path === '/healthz' || req.path.startsWith('/em/')) return next();
    const at = new Date().toISOString();
    res.on('finish', () => {
      const entry: RecordedRequest = { at, method: req.method, path: req.originalUrl.split('?')[0]!, status: res.statusCode };
      const s = authScheme(req.headers.authorization);
      if (s) entry.authorization = s;
      const v = req.headers.version;
      if (typeof v === 'string') entry.version = v;
      const cert = peerCertificateX5t(req);
      if (cert) entry.clientCertificate = cert;
      recorded.push(entry);
      logger.debug({ method: entry.method, path: entry.path, status: entry.status, authorization: entry.authorization }, 'request');
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  // ---- admin (no auth) ----
  const admin = express.Router();
  admin.get('/coordinations', (_req, res) => {
    res.json(store.list());
  });
  admin.get('/requests', (_req, res) => {
    res.json(recorded);
  });
  admin.get('/notifications', (_req, res) => {
    res.json(inbox.list());
  });
  admin.get('/behaviour', (_req, res) => {
    res.json(current);
  });
  admin.post('/behaviour', express.json(), (req, res) => {
    const parsed = BehaviourSchema.safeParse(req.body);
    if (!parsed.success) return problem(res, 400, `Invalid behaviour: ${describeIssues(parsed.error)}`);
    current = parsed.data;
    store.resetCounters();
    logger.info({ behaviour: current }, 'behaviour set');
    res.json(current);
  });
  app.use('/em', admin);

  // ---- OAuth 2.0 token endpoint ----
  app.post('/token', express.urlencoded({ extended: false, limit: '64kb' }), (req, res) => {
    res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache');
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!oauth2 || !tokens) return oauthError(res, 401, 'invalid_client', 'OAuth 2.0 is not configured on this EM');
    if (body.client_secret !== undefined) {
      return oauthError(res, 400, 'invalid_request', 'client_secret in the request body is not accepted: authenticate with HTTP Basic client_id:client_secret');
    }
    let clientId: string | undefined;
    let boundX5t: string | undefined;
    const header = req.headers.authorization;
    if (header) {
      const candidates = basicClientCandidates(header);
      if (candidates.length === 0) return oauthError(res, 401, 'invalid_client', 'client authentication must use HTTP Basic');
      const client = oauth2.clients.find(
        (c) => c.clientSecret !== undefined && candidates.some((k) => safeEqual(k.clientId, c.clientId) && safeEqual(k.secret, c.clientSecret!)),
      );
      if (!client) return oauthError(res, 401, 'invalid_client', 'unknown client or wrong client secret');
      clientId = client.clientId;
    } else {
      const x5t = peerCertificateX5t(req);
      if (!x5t) {
        return oauthError(res, 401, 'invalid_client', 'client authentication required: HTTP Basic client_id:client_secret, or a trusted TLS client certificate with client_id in the body');
      }
      if (typeof body.client_id !== 'string' || !body.client_id) {
        return oauthError(res, 400, 'invalid_request', 'client_id is required in the body with TLS client certificate authentication');
      }
      const id = body.client_id;
      const client = oauth2.clients.find((c) => c.clientId === id);
      if (!client || (client.certificateX5tS256 !== undefined && client.certificateX5tS256 !== x5t)) {
        return oauthError(res, 401, 'invalid_client', 'unknown client or client certificate not registered for it');
      }
      clientId = client.clientId;
      boundX5t = x5t;
    }
    if (body.grant_type === undefined) return oauthError(res, 400, 'invalid_request', 'grant_type is required');
    if (body.grant_type !== 'client_credentials') {
      return oauthError(res, 400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
    }
    res.status(200).json(tokens.issue(clientId, boundX5t));
  });

  // ---- coordination API ----
  const challenge = (res: Response, detail: string, bearerError?: string): void => {
    if (basic) res.append('WWW-Authenticate', `Basic realm="${REALM}"`);
    if (oauth2) {
      const params = bearerError
        ? `, error="invalid_token", error_description="${bearerError.replace(/["\\]/g, '')}"`
        : '';
      res.append('WWW-Authenticate', `Bearer realm="${REALM}"${params}`);
    }
    problem(res, 401, detail);
  };

  const authenticate = (req: Request, res: Response, next: NextFunction): void => {
    if (!basic && !oauth2) return next();
    const header = req.headers.authorization;
    const s = authScheme(header)?.toLowerCase();
    if (s === 'basic' && basic) {
      const b = parseBasic(header);
      const userOk = safeEqual(b?.user ?? '', basic.userName);
      const passOk = safeEqual(b?.pass ?? '', basic.password);
      if (b && userOk && passOk) return next();
      return challenge(res, 'Invalid user name or password');
    }
    if (s === 'bearer' && tokens) {
      const token = parseBearer(header);
      const r = token ? tokens.check(token, peerCertificateX5t(req)) : { ok: false as const, reason: 'malformed Bearer credentials' };
      if (r.ok) return next();
      return challenge(res, `Invalid access token: ${r.reason}`, r.reason);
    }
    return challenge(res, header ? `Authorization scheme "${authScheme(header)}" is not accepted here` : 'Authorization required');
  };

  const checkVersion = (req: Request, res: Response, next: NextFunction): void => {
    const v = req.headers.version;
    if (typeof v !== 'string' || !v.trim()) return problem(res, 400, `The Version header is required (this API is version ${COORD_API_VERSION})`);
    const m = VERSION_RE.exec(v.trim());
    if (!m) return problem(res, 400, `Malformed Version header "${v.slice(0, 40)}"`);
    if (m[1] !== COORD_API_VERSION.split('.')[0]) {
      return problem(res, 406, `API version ${v.slice(0, 40)} is not supported; supported: ${COORD_API_VERSION}`);
    }
    next();
  };

  const coord = express.Router();
  coord.use((_req, res, next) => {
    res.setHeader('Version', COORD_API_VERSION);
    next();
  });
  coord.use(authenticate);
  coord.use(checkVersion);
  coord.use(express.json({ limit: '1mb' }));

  coord.post('/coordinations', (req, res) => {
    if (req.body === undefined) return problem(res, 400, 'The body must be an LcmCoordRequest (Content-Type: application/json)');
    const parsed = LcmCoordRequest.safeParse(req.body);
    if (!parsed.success) return problem(res, 400, `Invalid LcmCoordRequest: ${describeIssues(parsed.error)}`);
    const request = parsed.data;
    let behaviour = current;
    let source: 'em' | 'request' = 'em';
    const override = request.inputParams?.emBehaviour;
    if (override !== undefined) {
      const b = BehaviourSchema.safeParse(override);
      if (!b.success) return problem(res, 400, `Invalid LcmCoordRequest: ${describeIssues(b.error, 'inputParams.emBehaviour')}`);
      behaviour = b.data;
      source = 'request';
    }
    const base = baseOf(req);
    const out = store.post(request, behaviour, source, base);
    const location = Coordinations.url(base, out.coordination.id);
    logger.info(
      { coordinationId: out.coordination.id, vnfLcmOpOccId: request.vnfLcmOpOccId, action: request.coordinationActionName, outcome: out.kind },
      'coordination request',
    );
    switch (out.kind) {
      case 'busy':
        res.set('Retry-After', out.retryAfter);
        return problem(res, 503, `The EM is busy; send the same coordination request again after Retry-After (${out.retryAfter})`);
      case 'error':
        if (out.retryAfter !== undefined) res.set('Retry-After', out.retryAfter);
        return problem(res, out.status, out.detail ?? `The EM answered ${out.status} (reference EM behaviour "error")`);
      case 'created':
        res.status(201).set('Location', location).json(out.lcmCoord);
        return;
      case 'accepted':
        res.status(202).set('Location', location).set('Retry-After', out.retryAfter).end();
        return;
    }
  });

  coord.get('/coordinations/:id', (req, res) => {
    const out = store.get(String(req.params.id));
    if (out.kind === 'unknown') return problem(res, 404, `No coordination ${String(req.params.id).slice(0, 80)}`);
    if (out.kind === 'pending') {
      res.status(202).set('Retry-After', out.retryAfter).end();
      return;
    }
    res.status(200).json(out.lcmCoord);
  });

  coord.post('/coordinations/:id/cancel', (req, res) => {
    const id = String(req.params.id);
    const out = store.cancel(id);
    if (out.kind === 'unknown') return problem(res, 404, `No coordination ${id.slice(0, 80)}`);
    if (out.kind === 'decided') return problem(res, 409, `Coordination ${id} has already finished with ${out.result}`);
    logger.info({ coordinationId: id }, 'coordination cancelled');
    res.status(202).end();
  });

  coord.use((req, res) => problem(res, 404, `No resource ${req.method} ${COORD_BASE}${req.path}`));
  app.use(COORD_BASE, coord);
  app.use('/notifications', inbox.router(authenticate));

  app.use((req, res) => problem(res, 404, `No route for ${req.method} ${req.path}`));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { status?: number; type?: string; message?: string };
    if (e.type === 'entity.parse.failed') return problem(res, 400, 'The request body is not valid JSON');
    if (e.status && e.status >= 400 && e.status < 500) return problem(res, e.status, e.message ?? 'Bad request');
    logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    problem(res, 500, 'Internal error');
  });

  const server = tls
    ? https.createServer(
        {
          cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca } : {}),
          requestCert: !!tls.requestClientCert, rejectUnauthorized: !!tls.requestClientCert,
        },
        app,
      )
    : http.createServer(app);
  server.on('tlsClientError', (err) => logger.debug({ err: err.message }, 'TLS handshake refused'));

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const advertised = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  url = `${scheme}://${advertised}:${port}`;
  logger.info(
    {
      url, behaviour: current,
      auth: { basic: !!basic, oauth2: oauth2 ? oauth2.clients.map((c) => c.clientId) : false, tls: !!tls, mutualTls: !!tls?.requestClientCert },
    },
    'reference EM listening',
  );

  let closed: Promise<void> | undefined;
  return {
    url,
    tokenEndpoint: `${url}/token`,
    coordinations: () => store.list(),
    requests: () => recorded.map((r) => ({ ...r })),
    behaviour: () => structuredClone(current),
    notifications: () => inbox.list(),
    setNotificationBehaviour: (b) => inbox.set(b),
    setBehaviour(b: Behaviour) {
      current = BehaviourSchema.parse(b);
      store.resetCounters();
    },
    decidePending: (result, vnfLcmOpOccId) => store.decidePending(result, vnfLcmOpOccId),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
