/**
 * The interpreter behind every exec request: runs parsed lists, pipelines
 * (stages one after the other, output buffered into the next stage),
 * redirections into the host's filesystem, builtins, and programs from the
 * command table. Injected faults are applied where a program is started, so
 * `sudo docker run` can be hit by a fault on "docker run" at either level.
 */
import type { Account } from '../host/accounts';
import { whoOf } from '../host/accounts';
import { FsError, MemFs, type Who } from '../host/fs';
import type { SimHost } from '../host/host';
import { COMMANDS, isStandardBinPath, type CommandSpec } from '../commands';
import type { ShellApi } from '../commands/types';
import { ExitSignal, type ExecSession } from './session';
import { BUILTINS } from './builtins';
import { expandString, expandWords } from './expand';
import { BufferInput, BufferOutput, nullOutput, type Io, type Output } from './io';
import { parseScript, ShellSyntaxError, type AndOr, type Command, type List, type Pipeline, type Redir, type SimpleCommand } from './parse';

/** Loops end after this many rounds: simulated time does not pass, so a polling loop would spin forever. */
const MAX_LOOP_ROUNDS = 1000;

const HANG_STATUS = 255;

export class Shell implements ShellApi {
  lastStatus = 0;
  errexit = false;
  pipefail = false;
  /** Inside an if/while condition: `set -e` does not apply there. */
  private conditionDepth = 0;

  constructor(
    readonly host: SimHost,
    readonly user: Account,
    readonly session: ExecSession,
    public env: Map<string, string>,
    public cwd: string,
    public positional: string[],
  ) {}

  /** A login shell of `account`, as sshd starts one for an exec request. */
  static login(host: SimHost, account: Account, session: ExecSession): Shell {
    const env = new Map<string, string>([
      ['HOME', account.home],
      ['USER', account.name],
      ['LOGNAME', account.name],
      ['SHELL', '/bin/bash'],
      ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
      ['LANG', 'C.UTF-8'],
      ['HOSTNAME', host.hostname],
      ...Object.entries(session.env),
    ]);
    const cwd = host.fs.isDir(account.home) ? account.home : '/';
    env.set('PWD', cwd);
    return new Shell(host, account, session, env, cwd, ['bash']);
  }

  /** The same session as another user, with the environment given (sudo, su): a fresh login-like shell in this directory. */
  as(user: Account, env: Map<string, string>): Shell {
    return new Shell(this.host, user, this.session, env, this.cwd, ['bash']);
  }

  get who(): Who {
    return whoOf(this.user);
  }

  /** A subshell / child process: copies of env and cwd; optionally another user or arguments. */
  child(opts: { user?: Account; env?: Map<string, string>; positional?: string[] }): Shell {
    const env = new Map(this.env);
    for (const [k, v] of opts.env ?? []) env.set(k, v);
    if (opts.user && opts.user !== this.user) {
      env.set('USER', opts.user.name);
      env.set('LOGNAME', opts.user.name);
    }
    const sh = new Shell(this.host, opts.user ?? this.user, this.session, env, this.cwd, opts.positional ?? this.positional);
    sh.lastStatus = this.lastStatus;
    return sh;
  }

  resolve(p: string): string {
    if (p === '~' || p.startsWith('~/')) p = (this.env.get('HOME') ?? this.user.home) + p.slice(1);
    return MemFs.resolve(p, this.cwd);
  }

  getVar(name: string): string | undefined {
    if (name === '?') return String(this.lastStatus);
    if (name === '$') return '4242';
    if (name === '#') return String(Math.max(0, this.positional.length - 1));
    if (name === '@' || name === '*') return this.positional.slice(1).join(' ');
    if (/^\d+$/.test(name)) return this.positional[Number(name)];
    return this.env.get(name);
  }

  /** Parses and runs a script; `label` prefixes syntax errors ("bash: -c"). */
  async run(src: string, io: Io, label = 'bash'): Promise<number> {
    let list: List;
    try {
      list = parseScript(src);
    } catch (err) {
      if (!(err instanceof ShellSyntaxError)) throw err;
      io.stderr.write(`${label}: line 1: ${err.message}\n`);
      return 2;
    }
    try {
      return await this.runList(list, io);
    } catch (err) {
      if (err instanceof ExitSignal) return err.code;
      throw err;
    }
  }

  async runList(list: List, io: Io): Promise<number> {
    let status = 0;
    for (const item of list) {
      if (this.session.isClosed()) return HANG_STATUS;
      const { status: s, exempt } = await this.runAndOr(item, io);
      status = s;
      this.lastStatus = s;
      if (this.errexit && s !== 0 && !exempt && this.conditionDepth === 0) throw new ExitSignal(s);
    }
    return status;
  }

  private async runAndOr(item: AndOr, io: Io): Promise<{ status: number; exempt: boolean }> {
    let status = await this.runPipeline(item.first, io);
    let exempt = item.rest.length > 0;
    for (const [i, { op, pipeline }] of item.rest.entries()) {
      this.lastStatus = status;
      if ((op === '&&' && status !== 0) || (op === '||' && status === 0)) continue;
      status = await this.runPipeline(pipeline, io);
      exempt = i < item.rest.length - 1;
    }
    return { status, exempt: exempt || item.first.negate };
  }

  private async runPipeline(p: Pipeline, io: Io): Promise<number> {
    let input = io.stdin;
    const statuses: number[] = [];
    for (const [i, cmd] of p.commands.entries()) {
      const last = i === p.commands.length - 1;
      const out = last ? undefined : new BufferOutput();
      statuses.push(await this.runCommand(cmd, { stdin: input, stdout: out ?? io.stdout, stderr: io.stderr }));
      if (out) input = new BufferInput(out.buffer());
    }
    let status = statuses[statuses.length - 1];
    if (this.pipefail) status = [...statuses].reverse().find((s) => s !== 0) ?? 0;
    return p.negate ? (status === 0 ? 1 : 0) : status;
  }

  private async runCommand(cmd: Command, io: Io): Promise<number> {
    const redirected = await this.applyRedirs(cmd.redirs, io);
    if (typeof redirected === 'number') return redirected;
    try {
      return await this.runCompound(cmd, redirected.io);
    } finally {
      redirected.finish();
    }
  }

  private async runCompound(cmd: Command, io: Io): Promise<number> {
    switch (cmd.kind) {
      case 'simple':
        return this.runSimple(cmd, io);
      case 'group': {
        const sub = this.child({});
        try {
          return await sub.runList(cmd.body, io);
        } catch (err) {
          if (err instanceof ExitSignal) return err.code;
          throw err;
        }
      }
      case 'brace':
        return this.runList(cmd.body, io);
      case 'if':
        for (const clause of cmd.clauses) {
          if ((await this.condition(clause.cond, io)) === 0) return this.runList(clause.body, io);
        }
        return cmd.elseBody ? this.runList(cmd.elseBody, io) : 0;
      case 'loop': {
        let status = 0;
        for (let round = 0; ; round++) {
          if (round >= MAX_LOOP_ROUNDS) {
            io.stderr.write(`bash: loop stopped after ${MAX_LOOP_ROUNDS} rounds (the simulator's time does not pass)\n`);
            return 1;
          }
          if (this.session.isClosed()) return HANG_STATUS;
          const c = await this.condition(cmd.cond, io);
          if ((c === 0) === cmd.until) return status;
          status = await this.runList(cmd.body, io);
        }
      }
      case 'for': {
        const items = cmd.items ? await expandWords(cmd.items, this, io.stderr) : this.positional.slice(1);
        let status = 0;
        for (const item of items) {
          this.env.set(cmd.name, item);
          status = await this.runList(cmd.body, io);
        }
        return status;
      }
    }
  }

  private async condition(list: List, io: Io): Promise<number> {
    this.conditionDepth++;
    try {
      return await this.runList(list, io);
    } finally {
      this.conditionDepth--;
    }
  }

  private async runSimple(cmd: SimpleCommand, io: Io): Promise<number> {
    const argv = await expandWords(cmd.words, this, io.stderr);
    const assigns = new Map<string, string>();
    for (const a of cmd.assigns) assigns.set(a.name, await expandString(a.value, this, io.stderr));
    if (argv.length === 0) {
      for (const [k, v] of assigns) this.env.set(k, v);
      return 0;
    }
    const builtin = BUILTINS[argv[0]];
    if (builtin) return builtin(argv.slice(1), io, this);
    const runner = assigns.size > 0 ? this.child({ env: assigns }) : this;
    return runner.exec(argv, io);
  }

  /** Starts a program (never a builtin): applies injected faults, then runs it; records it. */
  async exec(argv: string[], io: Io, errPrefix = 'bash'): Promise<number> {
    const record = this.host.recordProgram(argv, this.user.name);
    const status = await this.start(argv, io, errPrefix);
    record.exitCode = this.session.isClosed() ? null : status;
    return status;
  }

  private async start(argv: string[], io: Io, errPrefix: string): Promise<number> {
    const fault = this.host.hooks.takeFault(this.host, argv.join(' '));
    if (fault) {
      if (fault.hang) {
        await this.session.closed;
        return HANG_STATUS;
      }
      if (fault.stdout) io.stdout.write(withNewline(fault.stdout));
      if (fault.stderr) io.stderr.write(withNewline(fault.stderr));
      return fault.exitCode;
    }
    const [name, ...args] = argv;
    const program = this.findProgram(name);
    if (program === undefined) {
      io.stderr.write(`${errPrefix}: ${name}: command not found\n`);
      return 127;
    }
    if (typeof program === 'string') {
      if (program !== 'script') {
        io.stderr.write(`${errPrefix}: ${name}: ${program}\n`);
        return 126;
      }
      const path = this.resolve(name);
      return this.runScriptFile(path, args, io);
    }
    try {
      return await program.run({ name: name.split('/').pop() ?? name, args, io, sh: this });
    } catch (err) {
      if (err instanceof FsError) {
        io.stderr.write(`${name}: ${err.path}: ${err.message}\n`);
        return 1;
      }
      throw err;
    }
  }

  /** A command spec, 'script' for an executable shell script, an error text, or undefined (not found). */
  findProgram(name: string): CommandSpec | string | undefined {
    if (name.includes('/')) {
      const path = this.resolve(name);
      const base = path.split('/').pop() ?? '';
      const spec = COMMANDS[base];
      if (isStandardBinPath(path) && spec && (spec.available?.(this.host) ?? true)) return spec;
      const node = this.host.fs.get(path);
      if (!node) return undefined;
      if (node.kind === 'dir') return 'Is a directory';
      if ((node.mode & 0o111) === 0) return 'Permission denied';
      const head = node.data.subarray(0, 64).toString('utf8');
      if (!head.startsWith('#!') || /^#!\s*\/(usr\/)?bin\/(env\s+)?(ba)?sh\b/.test(head)) return 'script';
      return 'cannot execute binary file: Exec format error';
    }
    const spec = COMMANDS[name];
    if (spec && (spec.available?.(this.host) ?? true)) return spec;
    return undefined;
  }

  async runScriptFile(path: string, args: string[], io: Io): Promise<number> {
    let src: string;
    try {
      src = this.host.fs.readFile(path, this.who).toString('utf8');
    } catch (err) {
      if (!(err instanceof FsError)) throw err;
      io.stderr.write(`bash: ${path}: ${err.message}\n`);
      return err.code === 'ENOENT' ? 127 : 126;
    }
    return this.child({ positional: [path, ...args] }).run(src, io, path);
  }

  /** Applies redirections in order; returns the new streams and a finisher that writes files. */
  private async applyRedirs(redirs: Redir[], io: Io): Promise<{ io: Io; finish: () => void } | number> {
    if (redirs.length === 0) return { io, finish: () => {} };
    const fds: Io = { ...io };
    const files: { path: string; out: BufferOutput }[] = [];
    const setOut = (fd: number, out: Output) => {
      if (fd === 1) fds.stdout = out;
      else if (fd === 2) fds.stderr = out;
    };
    for (const r of redirs) {
      const target = await expandString(r.target, this, io.stderr);
      if (r.op === '<<') {
        fds.stdin = new BufferInput(target);
      } else if (r.op === '<<<') {
        fds.stdin = new BufferInput(`${target}\n`);
      } else if (r.op === '>&' && /^\d$|^-$/.test(target)) {
        setOut(r.fd, target === '1' ? fds.stdout : target === '2' ? fds.stderr : nullOutput);
      } else if (r.op === '<') {
        try {
          fds.stdin = new BufferInput(this.host.fs.readFile(this.resolve(target), this.who));
        } catch (err) {
          if (!(err instanceof FsError)) throw err;
          io.stderr.write(`bash: ${target}: ${err.message}\n`);
          return 1;
        }
      } else {
        const path = this.resolve(target);
        const append = r.op === '>>' || r.op === '&>>';
        let out: Output = nullOutput;
        if (path !== '/dev/null') {
          try {
            this.host.fs.checkWritable(path, this.who);
            if (!append || !this.host.fs.isFile(path)) this.host.fs.writeFile(path, '', this.who);
          } catch (err) {
            if (!(err instanceof FsError)) throw err;
            io.stderr.write(`bash: ${target}: ${err.message}\n`);
            return 1;
          }
          const buf = new BufferOutput();
          files.push({ path, out: buf });
          out = buf;
        }
        if (r.op === '&>' || r.op === '&>>' || r.op === '>&') {
          fds.stdout = out;
          fds.stderr = out;
        } else setOut(r.fd, out);
      }
    }
    return {
      io: fds,
      finish: () => {
        for (const f of files) this.host.fs.writeFile(f.path, f.out.buffer(), this.who, { append: true });
      },
    };
  }
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** Runs one exec request as `account` in a login shell on the host; records it (redacted) with its exit code. */
export async function execOnHost(host: SimHost, command: string, account: Account, session: ExecSession, io: Io): Promise<number | null> {
  const record = host.recordCommand(command, account.name);
  const started = Date.now();
  const status = await Shell.login(host, account, session).run(command, io, 'bash: -c');
  record.durationMs = Date.now() - started;
  // A command the client gave up on has no exit status.
  record.exitCode = session.isClosed() ? null : status;
  host.hooks.log.debug({ host: host.address, command: record.command, exitCode: record.exitCode }, 'ssh exec');
  return record.exitCode;
}
