/**
 * Connecting to a VNFC over SSH: password or private-key login, a retry loop
 * with backoff until a deadline (a fresh VM's sshd is not up yet), keep-alives
 * and host keys pinned per VNFC (HostKeyStore).
 *
 * Retried until the deadline: everything that can happen while a VM boots —
 * connection refused/reset, network unreachable, DNS, TCP or handshake
 * timeouts, banner/protocol errors, the server closing before the handshake.
 * Not retried: authentication failure, a host key mismatch, invalid options
 * (e.g. an unparsable private key).
 */
import { Client, ConnectConfig } from 'ssh2';
import { SshAuthError, SshConnectError, SshError, SshHostKeyMismatchError } from './errors';
import { HostKeyStore, hostKeyFingerprint } from './host-keys';
import { redactSecrets } from '../common/secrets';
import { SshSession } from './session';

export interface SshTarget {
  host: string;
  port?: number;
  username: string;
  /** Login password; also what `sudo` is fed on stdin. */
  password?: string;
  /** Private key text (OpenSSH or PEM format). */
  privateKey?: string;
  passphrase?: string;
  /** The VNFC id the host key is pinned under (with ConnectOptions.hostKeys). */
  hostKeyId?: string;
}

export interface ConnectOptions {
  /** Keep retrying retriable failures until this much time has passed. Default 300 000 ms. */
  deadlineMs?: number;
  /** Per attempt: TCP connect + SSH handshake + authentication. Default 20 000 ms. */
  readyTimeoutMs?: number;
  /** Keep-alive interval; the connection is dropped after keepaliveCountMax unanswered. Default 15 000 ms. */
  keepaliveIntervalMs?: number;
  /** Default 3. */
  keepaliveCountMax?: number;
  /** Where host keys are pinned, keyed by target.hostKeyId. Without it (or without hostKeyId) any host key is accepted. */
  hostKeys?: HostKeyStore;
  /**
   * When nothing is pinned for target.hostKeyId: the fingerprints the host
   * key must be among (e.g. what the server printed on its console), and
   * where they came from, for the error. A mismatch is refused in the key
   * exchange, before any credential is sent, and never retried.
   */
  expectedHostKeys?: { fingerprints: string[]; source: string };
  /** Receives progress lines, already redacted. */
  log?: (msg: string) => void;
  /** More strings to mask in output, errors and logs (the target's password, passphrase and key are always masked). */
  secrets?: string[];
  /** Default timeout of SshSession.exec/run. Default 600 000 ms. */
  execTimeoutMs?: number;
}

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5000;

/** A retriable or final failure of one connection attempt. */
interface AttemptFailure { retry: boolean; error: Error }

export async function connectSsh(target: SshTarget, opts: ConnectOptions = {}): Promise<SshSession> {
  const port = target.port ?? 22;
  const label = `${target.username}@${target.host}:${port}`;
  const secrets = [target.password, target.passphrase, target.privateKey, ...(opts.secrets ?? [])]
    .filter((s): s is string => typeof s === 'string' && s.length > 0);
  const redact = (s: string) => redactSecrets(s, secrets);
  const log = (m: string) => opts.log?.(redact(`ssh ${label}: ${m}`));
  const deadlineMs = opts.deadlineMs ?? 300_000;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 20_000;
  const deadline = Date.now() + deadlineMs;
  let backoff = FIRST_BACKOFF_MS;
  let lastError = '';
  for (let attempt = 1; ; attempt++) {
    const remaining = deadline - Date.now();
    const readyTimeout = Math.max(1000, Math.min(readyTimeoutMs, remaining));
    try {
      const { client, fingerprint } = await attemptConnect(target, port, label, opts, readyTimeout, redact);
      log(`connected (attempt ${attempt}, host key ${fingerprint})`);
      return new SshSession(client, {
        target: label, hostKeyFingerprint: fingerprint, password: target.password, secrets, log,
        execTimeoutMs: opts.execTimeoutMs ?? 600_000,
      });
    } catch (e) {
      const f = e as AttemptFailure;
      if (!f.retry) throw f.error;
      lastError = redact(f.error.message);
      const wait = Math.min(backoff, deadline - Date.now());
      if (wait <= 0) {
        throw new SshConnectError(
          `could not connect to ${label} within ${deadlineMs} ms (${attempt} attempts); last error: ${lastError}`,
          label, attempt, lastError);
      }
      log(`attempt ${attempt} failed (${lastError}); retrying in ${wait} ms`);
      await new Promise((r) => setTimeout(r, wait));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}

function attemptConnect(
  target: SshTarget, port: number, label: string, opts: ConnectOptions, readyTimeout: number, redact: (s: string) => string,
): Promise<{ client: Client; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    const store = target.hostKeyId !== undefined ? opts.hostKeys : undefined;
    const pinned = store ? store.get(target.hostKeyId!) : undefined;
    const expected = pinned === undefined ? opts.expectedHostKeys : undefined;
    let fingerprint = '';
    let mismatch = false;
    let settled = false;
    const fail = (retry: boolean, error: Error) => {
      if (settled) return;
      settled = true;
      client.removeAllListeners('ready');
      client.removeAllListeners('close');
      client.on('error', () => { /* late errors of a discarded attempt */ });
      client.destroy();
      reject({ retry, error } satisfies AttemptFailure);
    };
    client.on('ready', () => {
      if (settled) return;
      settled = true;
      client.removeAllListeners('error');
      client.removeAllListeners('close');
      if (store && pinned === undefined) {
        store.set(target.hostKeyId!, fingerprint);
        const how = expected ? `verified against ${expected.source}` : 'first use, unverified';
        opts.log?.(redact(`ssh ${label}: host key of ${target.hostKeyId} pinned (${how}): ${fingerprint}`));
      }
      resolve({ client, fingerprint });
    });
    client.on('error', (err: Error & { level?: string; code?: string }) => {
      if (mismatch && expected) {
        const want = expected.fingerprints.join(', ');
        fail(false, new SshHostKeyMismatchError(
          `host key mismatch for VNFC ${target.hostKeyId ?? '(unnamed)'} at ${label}: offered ${fingerprint}, ` +
          `expected one of ${want} (${expected.source}); refusing to connect, no credentials were sent`,
          label, target.hostKeyId ?? '', want, fingerprint));
      } else if (mismatch) {
        fail(false, new SshHostKeyMismatchError(
          `host key mismatch for ${label} (${target.hostKeyId}): pinned ${pinned}, offered ${fingerprint}; ` +
          `refusing to connect (forget the pinned key only if the VNFC was replaced)`,
          label, target.hostKeyId!, pinned!, fingerprint));
      } else if (err.level === 'client-authentication') {
        const methods = [target.password !== undefined && 'password', target.privateKey !== undefined && 'publickey']
          .filter(Boolean).join(', ') || 'none';
        fail(false, new SshAuthError(redact(`authentication failed for ${label} (methods: ${methods}); not retried`), label));
      } else {
        const code = err.code && !err.message.includes(err.code) ? ` (${err.code})` : '';
        fail(true, new Error(redact(`${err.message}${code}`)));
      }
    });
    client.on('close', () => fail(true, new Error('connection closed before the SSH handshake completed')));
    const config: ConnectConfig = {
      host: target.host, port, username: target.username,
      password: target.password, privateKey: target.privateKey, passphrase: target.passphrase,
      readyTimeout,
      keepaliveInterval: opts.keepaliveIntervalMs ?? 15_000,
      keepaliveCountMax: opts.keepaliveCountMax ?? 3,
      tryKeyboard: false,
      hostVerifier: (key: Buffer) => {
        fingerprint = hostKeyFingerprint(key);
        // Runs in the key exchange: a false here ends the connection before the auth service is even requested.
        if ((pinned !== undefined && pinned !== fingerprint) || (expected && !expected.fingerprints.includes(fingerprint))) {
          mismatch = true;
          return false;
        }
        return true;
      },
    };
    try {
      client.connect(config);
    } catch (e) {
      // Invalid options (unparsable private key, bad username...): not retriable.
      fail(false, new SshError(redact(`invalid SSH options for ${label}: ${(e as Error).message}`), label));
    }
  });
}
