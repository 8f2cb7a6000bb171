/**
 * One SSH connection to a VNFC: commands with timeouts (exit code, stdout and
 * stderr apart; success is the exit code), sudo fed the login password on
 * stdin, and SFTP uploads verified by size and sha256.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import {
  SshCommandError, SshConnectionLostError, SshError, SshTimeoutError, SshUploadError,
} from './errors';
import { observedCall } from '../common/observed-call';
import { redactSecrets } from '../common/secrets';

export interface ExecResult {
  /** Exit code; null when the command was killed by a signal (or the server sent none). */
  code: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
}

export interface ExecOptions {
  /** Kill the command after this long (default ConnectOptions.execTimeoutMs, 10 min). */
  timeoutMs?: number;
  /** Run as root through `sudo`, fed the login password on stdin when it asks. */
  sudo?: boolean;
  /** Written to the command's stdin, then stdin is closed (it is always closed). */
  stdin?: string | Buffer;
}

export interface UploadOptions {
  /** File mode to set, e.g. 0o644. */
  mode?: number;
  /** Upload to /tmp, verify, then `sudo mv` into place (owner `owner`, default 0:0). */
  sudo?: boolean;
  /** chown of the final file when sudo (default `0:0`). */
  owner?: string;
  /** Whole upload including verification (default 10 min). */
  timeoutMs?: number;
}

export interface SessionContext {
  target: string;
  hostKeyFingerprint: string;
  password?: string;
  secrets: string[];
  log: (msg: string) => void;
  execTimeoutMs: number;
}

/** Output kept per stream; the rest is dropped with a note. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** POSIX shell single-quoting. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export class SshSession {
  /** `user@host:port`. */
  readonly target: string;
  /** `SHA256:...` of the host key the server presented. */
  readonly hostKeyFingerprint: string;
  private closed = false;
  private lostReason = '';
  private readonly onLost = new Set<(reason: string) => void>();

  constructor(private readonly client: Client, private readonly ctx: SessionContext) {
    this.target = ctx.target;
    this.hostKeyFingerprint = ctx.hostKeyFingerprint;
    client.on('error', (e: Error) => { this.lostReason = this.redact(e.message); });
    client.on('close', () => {
      if (!this.closed) {
        this.closed = true;
        this.lostReason ||= 'connection closed by the remote side';
        this.ctx.log(`connection lost: ${this.lostReason}`);
      }
      for (const f of [...this.onLost]) f(this.lostReason);
    });
  }

  get isOpen(): boolean { return !this.closed; }

  /** Masks the session's secrets in a string. */
  redact(text: string): string { return redactSecrets(text, this.ctx.secrets); }

  /** Runs a command; resolves with its exit code and output whatever the code.
   *  Throws SshTimeoutError (command killed) or SshConnectionLostError. */
  exec(cmd: string, o: ExecOptions = {}): Promise<ExecResult> {
    return observedCall('ssh', 'exec', () => this.execOnce(cmd, o));
  }

  private execOnce(cmd: string, o: ExecOptions): Promise<ExecResult> {
    const shown = this.redact(cmd);
    const timeoutMs = o.timeoutMs ?? this.ctx.execTimeoutMs;
    const sudo = o.sudo ? sudoWrap(cmd, this.ctx.password !== undefined, timeoutMs) : undefined;
    const started = Date.now();
    this.ctx.log(`exec${o.sudo ? ' (sudo)' : ''}: ${shown}`);
    return new Promise<ExecResult>((resolve, reject) => {
      const out = new OutputBuffer();
      const err = new OutputBuffer();
      let channel: ClientChannel | undefined;
      let exit: { code: number | null; signal?: string } | undefined;
      let done = false;
      const finish = (f: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.onLost.delete(lost);
        f();
      };
      const stderrText = () => this.redact(sudo ? sudo.clean(err.text()) : err.text());
      const lost = (reason: string) => finish(() => reject(new SshConnectionLostError(
        `connection to ${this.target} lost while running "${shown}" (after ${Date.now() - started} ms): ${reason}`, this.target)));
      const timer = setTimeout(() => finish(() => {
        if (channel) {
          killChannel(channel);
          try { channel.close(); } catch { /* best effort */ }
        }
        this.ctx.log(`timeout after ${timeoutMs} ms: ${shown}`);
        reject(new SshTimeoutError(`command "${shown}" on ${this.target} timed out after ${timeoutMs} ms and was killed`,
          this.target, timeoutMs, this.redact(out.text()), stderrText()));
      }), timeoutMs);
      if (this.closed) return lost(this.lostReason || 'session closed');
      this.onLost.add(lost);
      const onChannel = (e: Error | undefined, ch: ClientChannel) => {
        if (done) { if (ch) ch.close(); return; }
        if (e) {
          if (this.closed) return lost(this.lostReason || e.message);
          return finish(() => reject(new SshError(this.redact(`could not start "${shown}" on ${this.target}: ${e.message}`), this.target)));
        }
        channel = ch;
        let stdinSent = false;
        const sendStdin = () => {
          if (stdinSent) return;
          stdinSent = true;
          if (o.stdin !== undefined && o.stdin.length > 0) ch.write(o.stdin);
          ch.end();
        };
        const onStreamError = (e: Error) => this.ctx.log(this.redact(`channel error while running "${shown}": ${e.message}`));
        ch.on('error', onStreamError);
        ch.stderr.on('error', onStreamError);
        ch.on('data', (d: Buffer) => out.push(d));
        ch.stderr.on('data', (d: Buffer) => {
          err.push(d);
          if (!sudo || stdinSent) return;
          const step = sudo.scan(d);
          if (step === 'password') ch.write(`${this.ctx.password}\n`);
          else if (step === 'started' || step === 'rejected') sendStdin();
        });
        ch.on('exit', (code: number | null, signal?: string) => { exit = { code: code ?? null, signal: signal || undefined }; });
        ch.on('close', () => {
          // A dropped connection closes its channels right after the client's
          // 'close' event: let that be reported as a lost connection.
          setImmediate(() => {
            if (done) return;
            if (!exit && this.closed) return lost(this.lostReason || 'session closed');
            finish(() => {
              const r: ExecResult = { code: exit?.code ?? null, stdout: this.redact(out.text()), stderr: stderrText() };
              if (exit?.signal) r.signal = exit.signal;
              this.ctx.log(`exit ${r.code ?? `signal ${r.signal ?? '?'}`} after ${Date.now() - started} ms: ${shown}`);
              resolve(r);
            });
          });
        });
        if (!sudo) sendStdin();
      };
      try {
        this.client.exec(sudo ? sudo.command : cmd, onChannel);
      } catch (e) {
        lost(this.lostReason || (e as Error).message);
      }
    });
  }

  /** exec() that throws SshCommandError unless the exit code is 0. */
  async run(cmd: string, o: ExecOptions = {}): Promise<ExecResult> {
    const r = await this.exec(cmd, o);
    if (r.code !== 0) {
      const shown = this.redact(cmd);
      const how = r.code === null ? `was killed by signal ${r.signal ?? '(unknown)'}` : `failed with exit code ${r.code}`;
      const tail = lastChars(r.stderr.trim() || r.stdout.trim(), 500);
      throw new SshCommandError(`command "${shown}" on ${this.target} ${how}${tail ? `: ${tail}` : ''}`,
        this.target, shown, r.code, r.signal, r.stdout, r.stderr);
    }
    return r;
  }

  /**
   * Uploads a Buffer or a local file over SFTP, then checks the remote size
   * (SFTP stat) and sha256 (`sha256sum`); a mismatch is uploaded once more,
   * then SshUploadError. With sudo the file goes to /tmp first, is verified
   * there, then moved into place as root (chown `owner`, default 0:0).
   */
  async upload(content: Buffer | { path: string }, remotePath: string, o: UploadOptions = {}): Promise<{ size: number; sha256: string }> {
    const timeoutMs = o.timeoutMs ?? 600_000;
    const local = await localDigest(content);
    const dest = o.sudo ? `/tmp/.nfv-upload-${crypto.randomBytes(8).toString('hex')}` : remotePath;
    const src = Buffer.isBuffer(content) ? `${content.length} bytes` : this.redact(content.path);
    this.ctx.log(`upload ${src} -> ${remotePath}${o.sudo ? ` (via ${dest}, sudo)` : ''}`);
    const deadline = Date.now() + timeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    try {
      for (let attempt = 1; ; attempt++) {
        await this.withSftp(left(), `upload to ${remotePath}`, (sftp) => this.putFile(sftp, content, dest));
        const size = await this.withSftp(left(), `stat ${remotePath}`,
          (sftp) => new Promise<number>((res, rej) => sftp.stat(dest, (e, st) => (e ? rej(e) : res(st.size)))));
        const sha256 = size === local.size ? await this.remoteSha256(dest, false, left()) : '';
        if (size === local.size && sha256 === local.sha256) break;
        const what = size !== local.size ? `size ${size}, expected ${local.size}` : `sha256 ${sha256}, expected ${local.sha256}`;
        if (attempt >= 2) {
          throw new SshUploadError(`upload to ${this.target}:${remotePath} failed verification twice (${what})`, this.target);
        }
        this.ctx.log(`upload to ${remotePath}: verification failed (${what}); uploading again`);
      }
      if (!o.sudo) {
        if (o.mode !== undefined) {
          await this.withSftp(left(), `chmod ${remotePath}`,
            (sftp) => new Promise<void>((res, rej) => sftp.chmod(dest, o.mode!, (e) => (e ? rej(e) : res()))));
        }
      } else {
        const q = shellQuote(dest);
        const steps = [`chown ${shellQuote(o.owner ?? '0:0')} -- ${q}`];
        if (o.mode !== undefined) steps.push(`chmod ${o.mode.toString(8)} -- ${q}`);
        steps.push(`mv -f -- ${q} ${shellQuote(remotePath)}`);
        await this.run(steps.join(' && '), { sudo: true, timeoutMs: left() });
        const sha256 = await this.remoteSha256(remotePath, true, left());
        if (sha256 !== local.sha256) {
          throw new SshUploadError(`upload to ${this.target}:${remotePath}: sha256 ${sha256} after moving into place, expected ${local.sha256}`, this.target);
        }
      }
    } catch (e) {
      if (o.sudo && this.isOpen) await this.exec(`rm -f -- ${shellQuote(dest)}`, { sudo: true, timeoutMs: 10_000 }).catch(() => undefined);
      if (e instanceof SshError) throw e;
      throw new SshUploadError(this.redact(`upload to ${this.target}:${remotePath} failed: ${(e as Error).message}`), this.target);
    }
    this.ctx.log(`uploaded ${remotePath} (${local.size} bytes, sha256 ${local.sha256})`);
    return local;
  }

  /** sha256 of a remote file via `sha256sum` (as root with sudo). */
  async remoteSha256(remotePath: string, sudo = false, timeoutMs = 60_000): Promise<string> {
    const r = await this.run(`sha256sum -- ${shellQuote(remotePath)}`, { sudo, timeoutMs });
    const m = /^\\?([0-9a-f]{64})\s/.exec(r.stdout);
    if (!m) throw new SshUploadError(`unexpected sha256sum output for ${this.target}:${remotePath}: ${lastChars(r.stdout, 200)}`, this.target);
    return m[1];
  }

  /** Ends the connection (waits up to 2 s for it to close). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lostReason = 'session closed';
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        // Client.destroy() is a no-op once end() ran; destroy the socket itself.
        const sock = (this.client as unknown as { _sock?: { destroy?: () => void } })._sock;
        if (typeof sock?.destroy === 'function') sock.destroy(); else this.client.destroy();
        resolve();
      }, 2000);
      this.client.once('close', () => { clearTimeout(t); resolve(); });
      this.client.end();
    });
    this.ctx.log('closed');
  }

  /** Writes one file over SFTP (separate so tests can corrupt a transfer). */
  private putFile(sftp: SFTPWrapper, content: Buffer | { path: string }, remotePath: string): Promise<void> {
    return new Promise<void>((res, rej) => {
      if (Buffer.isBuffer(content)) sftp.writeFile(remotePath, content, (e) => (e ? rej(e) : res()));
      else sftp.fastPut(content.path, remotePath, (e) => (e ? rej(e) : res()));
    });
  }

  /** Opens an SFTP channel, runs f with a timeout, always ends the channel. */
  private async withSftp<T>(timeoutMs: number, what: string, f: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
    if (this.closed) throw new SshConnectionLostError(`connection to ${this.target} lost before ${what}: ${this.lostReason}`, this.target);
    let sftp: SFTPWrapper | undefined;
    let timer: NodeJS.Timeout | undefined;
    let lost: ((reason: string) => void) | undefined;
    try {
      return await new Promise<T>((resolve, reject) => {
        timer = setTimeout(() => reject(new SshTimeoutError(`${what} on ${this.target} timed out after ${timeoutMs} ms`, this.target, timeoutMs)), timeoutMs);
        lost = (reason) => reject(new SshConnectionLostError(`connection to ${this.target} lost during ${what}: ${reason}`, this.target));
        this.onLost.add(lost);
        try {
          this.client.sftp((e, s) => {
            if (e) return reject(e);
            sftp = s;
            f(s).then(resolve, reject);
          });
        } catch (e) {
          reject(e);
        }
      });
    } finally {
      clearTimeout(timer);
      if (lost) this.onLost.delete(lost);
      try { sftp?.end(); } catch { /* already gone */ }
    }
  }
}

/** The sudo wrapping of a command: sudo runs `sh -c` (the whole command line
 *  as root); it is given the password only when it prints our prompt marker,
 *  and the caller's stdin only after the root shell printed its start marker,
 *  so the password can never end up as the command's input. The root shell
 *  runs the command under `timeout -s KILL` (when the VM has it) a little
 *  longer than our own timeout: our SIGKILL request runs as the login user
 *  and cannot reach root processes. */
function sudoWrap(cmd: string, havePassword: boolean, timeoutMs: number) {
  const id = crypto.randomBytes(6).toString('hex');
  const prompt = `[nfv-sudo-prompt-${id}]`;
  const startedMark = `[nfv-sudo-started-${id}]`;
  const remoteSecs = Math.ceil(timeoutMs / 1000) + 2;
  const inner = [
    `printf '%s' ${shellQuote(startedMark)} >&2`,
    `if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL ${remoteSecs} sh -c "$1"; fi`,
    'exec sh -c "$1"',
  ].join('\n');
  // -k: ignore cached credentials, so sudo asks (and reads the password
  // line) every time the policy wants a password. -n without a password.
  const flags = havePassword ? `-k -S -p ${shellQuote(prompt)}` : '-n';
  const command = `sudo ${flags} -- sh -c ${shellQuote(inner)} sh ${shellQuote(cmd)}`;
  let seen = '';
  let prompts = 0;
  return {
    command,
    /** What the new stderr bytes ask for. */
    scan(d: Buffer): 'password' | 'rejected' | 'started' | undefined {
      seen += d.toString('latin1');
      if (seen.includes(startedMark)) return 'started';
      const n = seen.split(prompt).length - 1;
      if (n === prompts) return undefined;
      prompts = n;
      return n === 1 ? 'password' : 'rejected';
    },
    /** stderr without the markers. */
    clean(text: string): string {
      return text.split(`${prompt}\n`).join('').split(prompt).join('').split(startedMark).join('');
    },
  };
}

/** Sends SIGKILL to the command (sshd: killpg of the session's process group).
 *  ssh2's Channel.signal() silently does nothing once our side of the channel
 *  is ended (stdin closed, which exec always does), so the request goes
 *  through the channel's protocol object in that case (ssh2 1.x internals). */
function killChannel(ch: ClientChannel): void {
  try {
    if (ch.writable && (ch as unknown as { outgoing?: { state?: string } }).outgoing?.state === 'open') return ch.signal('KILL');
    const c = ch as unknown as {
      type?: string; outgoing?: { id?: number; state?: string };
      _client?: { _protocol?: { signal?: (id: number, name: string) => void } };
    };
    const proto = c._client?._protocol;
    const state = c.outgoing?.state;
    if (c.type === 'session' && (state === 'open' || state === 'eof') && typeof c.outgoing?.id === 'number' && typeof proto?.signal === 'function') {
      proto.signal(c.outgoing.id, 'KILL');
    }
  } catch { /* best effort: the channel is closed next anyway */ }
}

class OutputBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = 0;
  push(d: Buffer): void {
    if (this.bytes >= MAX_OUTPUT_BYTES) { this.dropped += d.length; return; }
    this.chunks.push(d);
    this.bytes += d.length;
  }
  text(): string {
    const s = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped ? `${s}\n[... ${this.dropped} more bytes dropped]` : s;
  }
}

function lastChars(s: string, n: number): string {
  return s.length <= n ? s : `...${s.slice(-n)}`;
}

async function localDigest(content: Buffer | { path: string }): Promise<{ size: number; sha256: string }> {
  if (Buffer.isBuffer(content)) {
    return { size: content.length, sha256: crypto.createHash('sha256').update(content).digest('hex') };
  }
  const hash = crypto.createHash('sha256');
  let size = 0;
  for await (const chunk of fs.createReadStream(content.path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: hash.digest('hex') };
}
