/**
 * Authentication of the reference EM: HTTP Basic, OAuth 2.0 client
 * credentials (token endpoint + Bearer tokens it issued, optionally bound to
 * the mTLS client certificate they were obtained with, RFC 8705) and the
 * client certificate of a mutual TLS connection.
 */
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

export interface BasicCredentials { userName: string; password: string }

export interface OAuth2Client {
  clientId: string;
  /** Present: the client may authenticate with HTTP Basic client_id:client_secret. */
  clientSecret?: string;
  /** x5t#S256 (base64url SHA-256 of the DER certificate): when set, mTLS client authentication needs this certificate. */
  certificateX5tS256?: string;
}

/** x5t#S256 thumbprint of a DER certificate (RFC 7515 4.1.8): base64url of its SHA-256. */
export function x5tS256(der: Buffer): string {
  return crypto.createHash('sha256').update(der).digest('base64url');
}

/** Constant-time string comparison (through fixed-length digests). */
export function safeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

/** The scheme of an Authorization header (e.g. "Basic", "Bearer"), never its credentials. */
export function authScheme(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const scheme = header.trim().split(/\s+/, 1)[0];
  return scheme ? scheme : undefined;
}

export function parseBasic(header: string | undefined): { user: string; pass: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return undefined;
  return { user: decoded.slice(0, i), pass: decoded.slice(i + 1) };
}

export function parseBearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m ? m[1] : undefined;
}

/** application/x-www-form-urlencoded decoding, as RFC 6749 2.3.1 asks for Basic client credentials. */
function formDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** Client id/secret from a Basic header; both the raw and the form-decoded forms are accepted. */
export function basicClientCandidates(header: string | undefined): { clientId: string; secret: string }[] {
  const b = parseBasic(header);
  if (!b) return [];
  const out = [{ clientId: b.user, secret: b.pass }];
  const id = formDecode(b.user);
  const secret = formDecode(b.pass);
  if (id !== undefined && secret !== undefined && (id !== b.user || secret !== b.pass)) out.push({ clientId: id, secret });
  return out;
}

/** Thumbprint of the trusted client certificate of the request's TLS connection, if any. */
export function peerCertificateX5t(req: IncomingMessage): string | undefined {
  const sock = req.socket as TLSSocket;
  if (!sock.encrypted || !sock.authorized) return undefined;
  const cert = sock.getPeerCertificate();
  if (!cert || !cert.raw) return undefined;
  return x5tS256(cert.raw);
}

interface IssuedToken { clientId: string; expiresAt: number; x5t?: string }

export class TokenService {
  private readonly tokens = new Map<string, IssuedToken>();
  constructor(readonly ttlSec: number, private readonly now: () => number = Date.now) {}

  issue(clientId: string, x5t?: string): { access_token: string; token_type: 'Bearer'; expires_in: number } {
    this.sweep();
    const token = crypto.randomBytes(32).toString('base64url');
    this.tokens.set(token, { clientId, expiresAt: this.now() + this.ttlSec * 1000, ...(x5t ? { x5t } : {}) });
    return { access_token: token, token_type: 'Bearer', expires_in: this.ttlSec };
  }

  /** ok, or why not (for WWW-Authenticate error_description). */
  check(token: string, peerX5t: string | undefined): { ok: true; clientId: string } | { ok: false; reason: string } {
    const t = this.tokens.get(token);
    if (!t) return { ok: false, reason: 'unknown access token' };
    if (this.now() >= t.expiresAt) return { ok: false, reason: 'access token expired' };
    if (t.x5t && t.x5t !== peerX5t) return { ok: false, reason: 'access token is bound to another client certificate' };
    return { ok: true, clientId: t.clientId };
  }

  private sweep(): void {
    const now = this.now();
    // Expired tokens are kept a while so that using one says "expired" rather than "unknown".
    for (const [k, t] of this.tokens) if (now >= t.expiresAt + 3600_000) this.tokens.delete(k);
  }
}
