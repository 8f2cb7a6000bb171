/**
 * The reference EM as a SOL003 notification endpoint (the callbackUri of an
 * LCM subscription, `<em>/notifications`), behind the EM's authentication
 * (Basic, Bearer tokens of /token, mutual TLS): GET answers 204 (the VNFM's
 * test of a new subscription), POST records the notification and answers
 * 204. A behaviour makes it refuse: the test GET with `testStatus`, the
 * first `refuse` POSTs with `status` (503 by default), or every POST
 * (`refuse: -1`). Received notifications keep every copy: a redelivery shows
 * as the same `id` twice.
 */
import express, { type RequestHandler } from 'express';
import { authScheme, peerCertificateX5t } from './auth';

export interface NotificationBehaviour { testStatus?: number; refuse?: number; status?: number }

export interface ReceivedNotification {
  at: string;
  /** The notification body as POSTed. */
  body: Record<string, unknown>;
  /** Scheme of the Authorization header ("Basic", "Bearer"), never its credentials. */
  authorization?: string;
  /** x5t#S256 of the TLS client certificate, if any. */
  clientCertificate?: string;
  version?: string;
}

export class NotificationInbox {
  private received: ReceivedNotification[] = [];
  private behaviour: NotificationBehaviour = {};
  private refused = 0;
  tests = 0;

  set(b: NotificationBehaviour): void {
    this.behaviour = { ...b };
    this.refused = 0;
  }

  list(): ReceivedNotification[] {
    return this.received.map((r) => ({ ...r, body: structuredClone(r.body) }));
  }

  router(authenticate: RequestHandler): express.Router {
    const r = express.Router();
    r.use(authenticate);
    r.get('/', (_req, res) => {
      this.tests++;
      res.status(this.behaviour.testStatus ?? 204).end();
    });
    r.post('/', express.json({ limit: '1mb' }), (req, res) => {
      const b = this.behaviour;
      if (b.refuse !== undefined && (b.refuse < 0 || this.refused < b.refuse)) {
        this.refused++;
        res.status(b.status ?? 503).type('application/problem+json').send(JSON.stringify({ status: b.status ?? 503, detail: 'the EM refuses notifications for now' }));
        return;
      }
      const entry: ReceivedNotification = { at: new Date().toISOString(), body: (req.body ?? {}) as Record<string, unknown> };
      const s = authScheme(req.headers.authorization);
      if (s) entry.authorization = s;
      const cert = peerCertificateX5t(req);
      if (cert) entry.clientCertificate = cert;
      if (typeof req.headers.version === 'string') entry.version = req.headers.version;
      this.received.push(entry);
      res.status(204).end();
    });
    return r;
  }
}
