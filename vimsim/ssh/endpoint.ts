/**
 * One SSH server (ssh2.Server) per simulated server, bound to the server's
 * pool address: password, keyboard-interactive and public-key auth against
 * the host's accounts; exec requests and interactive shells run the host's
 * interpreter; the sftp subsystem serves its filesystem.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { Server, utils, type AuthContext, type Connection, type ServerChannel, type Session } from 'ssh2';
import type { Account } from './host/accounts';
import type { SimHost } from './host/host';
import type { ExecSession } from './shell/session';
import { execOnHost } from './shell/shell';
import type { Io, Output } from './shell/io';
import { ChannelInput } from './channel-input';
import { serveSftp } from './sftp';

const AUTH_METHODS = ['password', 'publickey', 'keyboard-interactive'] as const;

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether a client key is one of the account's authorized keys (and, when signed, the signature holds). */
function keyAccepted(account: Account, ctx: Extract<AuthContext, { method: 'publickey' }>): boolean {
  for (const line of account.authorizedKeys) {
    const parsed = utils.parseKey(line.trim().split(/\s+/).slice(0, 2).join(' '));
    const key = parsed instanceof Error ? undefined : Array.isArray(parsed) ? parsed[0] : parsed;
    if (!key || key.type !== ctx.key.algo || !key.getPublicSSH().equals(ctx.key.data)) continue;
    if (!ctx.signature || !ctx.blob) return true; // "would this key do?" query
    return key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true;
  }
  return false;
}

export class SshEndpoint {
  listening = false;
  error: string | undefined;
  private readonly server: Server;
  private readonly clients = new Set<Connection>();
  private closed = false;

  constructor(
    readonly address: string,
    readonly port: number,
    readonly host: SimHost,
    hostKey: string,
    private readonly log: Logger,
  ) {
    this.server = new Server({ hostKeys: [hostKey], ident: 'OpenSSH_8.2p1 Ubuntu-4ubuntu0.9' }, (client) => this.onClient(client));
    this.server.on('error', (err: NodeJS.ErrnoException) => {
      this.error = `${err.code ?? 'error'}: ${err.message}`;
      this.listening = false;
      this.log.warn({ address, port, err: err.message }, 'SSH endpoint could not listen');
    });
    this.server.on('listening', () => {
      this.listening = true;
    });
  }

  /** Binds synchronously for an IP address (Node binds IP literals at once), so the port is taken on return. */
  listen(): void {
    this.server.listen(this.port, this.address);
  }

  /** Stops listening and drops every connection: the server is gone. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listening = false;
    try {
      this.server.close();
    } catch {
      // never listened
    }
    for (const client of this.clients) client.end();
  }

  private onClient(client: Connection): void {
    if (this.closed) {
      client.end();
      return;
    }
    this.clients.add(client);
    let account: Account | undefined;
    const sessions = new Set<() => void>();
    client.on('error', (err) => this.log.debug({ address: this.address, err: err.message }, 'ssh client error'));
    client.on('close', () => {
      this.clients.delete(client);
      for (const end of sessions) end();
    });
    client.on('authentication', (ctx) =>
      this.authenticate(ctx, (accepted) => {
        account = accepted;
        ctx.accept();
      }),
    );
    client.on('ready', () => {
      client.on('session', (accept) => {
        const session = accept();
        if (account) this.onSession(session, account, sessions);
      });
    });
  }

  /** Calls accept with the account when the credentials are right; rejects ctx otherwise. */
  private authenticate(ctx: AuthContext, acceptAccount: (account: Account) => void): void {
    const attempt = { method: ctx.method, accepted: false, at: new Date().toISOString() };
    this.host.authAttempts.push(attempt);
    if (this.host.authAttempts.length > 1000) this.host.authAttempts.shift();
    const accept = (a: Account) => {
      attempt.accepted = true;
      acceptAccount(a);
    };
    const account = this.host.accounts.get(ctx.username);
    const loginable = account && account.uid !== 0 ? account : undefined;
    const password = loginable?.passwordLogin ? loginable.password : undefined;
    const reject = () => ctx.reject([...AUTH_METHODS]);
    switch (ctx.method) {
      case 'password':
        return loginable && password !== undefined && sameSecret(ctx.password, password) ? accept(loginable) : reject();
      case 'publickey':
        return loginable && keyAccepted(loginable, ctx) ? accept(loginable) : reject();
      case 'keyboard-interactive':
        if (!loginable || password === undefined) return reject();
        return ctx.prompt([{ prompt: 'Password: ', echo: false }], (answers) =>
          answers[0] !== undefined && sameSecret(answers[0], password) ? accept(loginable) : reject(),
        );
      default:
        return reject();
    }
  }

  private onSession(session: Session, account: Account, sessions: Set<() => void>): void {
    let tty = false;
    const env: Record<string, string> = {};
    session.on('pty', (accept) => {
      tty = true;
      accept?.();
    });
    session.on('env', (accept, _reject, info) => {
      env[info.key] = info.val;
      accept?.();
    });
    session.on('exec', (accept, _reject, info) => {
      const channel = accept();
      void this.run(channel, account, this.execSession(channel, tty, env, sessions), info.command).then((status) => {
        if (status !== null) finish(channel, status);
      });
    });
    session.on('shell', (accept) => {
      const channel = accept();
      void this.interactive(channel, account, this.execSession(channel, true, env, sessions));
    });
    session.on('sftp', (accept) => serveSftp(accept(), this.host, account));
    session.on('subsystem', (_accept, reject) => reject?.());
  }

  private execSession(channel: ServerChannel, tty: boolean, env: Record<string, string>, sessions: Set<() => void>): ExecSession {
    let closed = false;
    let signal!: () => void;
    const closedPromise = new Promise<void>((resolve) => (signal = resolve));
    const end = () => {
      closed = true;
      sessions.delete(end);
      signal();
    };
    sessions.add(end);
    channel.on('close', end);
    return { closed: closedPromise, isClosed: () => closed, tty, sudoAuthenticated: false, env: { ...env } };
  }

  private io(channel: ServerChannel, session: ExecSession): Io {
    const guard = (write: (d: string | Buffer) => void): Output => ({ write: (d) => (session.isClosed() ? undefined : write(d)) });
    return {
      stdin: new ChannelInput(channel),
      stdout: guard((d) => channel.write(d)),
      stderr: guard((d) => channel.stderr.write(d)),
    };
  }

  private async run(channel: ServerChannel, account: Account, session: ExecSession, command: string): Promise<number | null> {
    try {
      return await execOnHost(this.host, command, account, session, this.io(channel, session));
    } catch (err) {
      this.log.error({ err, command }, 'simulated command crashed');
      if (!session.isClosed()) channel.stderr.write(`vimsim: internal error: ${(err as Error).message}\n`);
      return 255;
    }
  }

  /** A minimal interactive shell: one command per line, `exit` ends it. */
  private async interactive(channel: ServerChannel, account: Account, session: ExecSession): Promise<void> {
    const io = this.io(channel, session);
    const prompt = () => io.stdout.write(`${account.name}@${this.host.hostname}:~$ `);
    io.stdout.write(`Welcome to Ubuntu 20.04.6 LTS (GNU/Linux 5.4.0-169-generic x86_64)\n\n`);
    prompt();
    for (;;) {
      const line = await io.stdin.readLine();
      if (line === null || session.isClosed()) break;
      const trimmed = line.trim();
      if (trimmed === 'exit' || trimmed === 'logout') {
        finish(channel, 0);
        return;
      }
      if (trimmed) await execOnHost(this.host, trimmed, account, session, { ...io });
      prompt();
    }
    if (!session.isClosed()) finish(channel, 0);
  }
}

function finish(channel: ServerChannel, status: number): void {
  try {
    channel.exit(status);
    channel.end();
  } catch {
    // the client went away meanwhile
  }
}
