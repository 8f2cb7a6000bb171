/** The contract of a simulated program, and small helpers the programs share. */
import type { Account } from '../host/accounts';
import type { Who } from '../host/fs';
import type { SimHost } from '../host/host';
import type { Io } from '../shell/io';
import type { ExecSession } from '../shell/session';

/** What a program (and a builtin, and word expansion) sees of the shell that runs it (shell/shell.ts implements it). */
export interface ShellApi {
  readonly host: SimHost;
  readonly user: Account;
  readonly session: ExecSession;
  readonly who: Who;
  env: Map<string, string>;
  cwd: string;
  positional: string[];
  lastStatus: number;
  errexit: boolean;
  pipefail: boolean;
  /** A path made absolute against the working directory (and ~). */
  resolve(p: string): string;
  getVar(name: string): string | undefined;
  /** A subshell / child process: copies of env and cwd; optionally another user or arguments. */
  child(opts: { user?: Account; env?: Map<string, string>; positional?: string[] }): ShellApi;
  /** The same session as another user with the environment given (sudo, su). */
  as(user: Account, env: Map<string, string>): ShellApi;
  /** A program by name: its spec, a script's path, or undefined when not found. */
  findProgram(name: string): CommandSpec | string | undefined;
  run(src: string, io: Io, label?: string): Promise<number>;
  exec(argv: string[], io: Io, errPrefix?: string): Promise<number>;
  runScriptFile(path: string, args: string[], io: Io): Promise<number>;
}

export interface CommandContext {
  /** argv[0] without a directory. */
  name: string;
  args: string[];
  io: Io;
  sh: ShellApi;
}

export interface CommandSpec {
  run(ctx: CommandContext): Promise<number> | number;
  /** Whether the program is installed (docker comes with docker-ce); always when absent. */
  available?(host: SimHost): boolean;
}

export type CommandTable = Record<string, CommandSpec>;

export interface ParsedArgs {
  /** Flags by name without dashes ("n", "name"); repeated flags keep the last value. */
  flags: Map<string, string | true>;
  /** Every flag in order (for repeatable ones such as -p, -v, -e). */
  all: [string, string | true][];
  operands: string[];
}

/**
 * GNU-style option parsing: combined short flags (-rf), attached or separate
 * values (-n5, -n 5, --name=x, --name x), `--` ends options. With
 * stopAtOperand, everything after the first operand is an operand (sudo,
 * docker run's command).
 */
export function getopt(args: string[], valued: readonly string[] = [], stopAtOperand = false): ParsedArgs {
  const flags = new Map<string, string | true>();
  const all: [string, string | true][] = [];
  const operands: string[] = [];
  const set = (k: string, v: string | true) => {
    flags.set(k, v);
    all.push([k, v]);
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      const key = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) set(key, a.slice(eq + 1));
      else if (valued.includes(key) && i + 1 < args.length) set(key, args[++i]);
      else set(key, true);
    } else if (a.startsWith('-') && a.length > 1 && !/^-\d+$/.test(a)) {
      for (let j = 1; j < a.length; j++) {
        const key = a[j];
        if (valued.includes(key)) {
          const rest = a.slice(j + 1);
          set(key, rest !== '' ? rest : args[++i] ?? '');
          break;
        }
        set(key, true);
      }
    } else {
      operands.push(a);
      if (stopAtOperand) {
        operands.push(...args.slice(i + 1));
        break;
      }
    }
  }
  return { flags, all, operands };
}

export function has(p: ParsedArgs, ...names: string[]): boolean {
  return names.some((n) => p.flags.has(n));
}

export function value(p: ParsedArgs, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = p.flags.get(n);
    if (typeof v === 'string') return v;
  }
  return undefined;
}

export function values(p: ParsedArgs, ...names: string[]): string[] {
  return p.all.filter(([k, v]) => names.includes(k) && typeof v === 'string').map(([, v]) => v as string);
}

export function isRoot(ctx: CommandContext): boolean {
  return ctx.sh.user.uid === 0;
}

/** Reads a file argument ("-" = stdin) for text tools; writes the error and returns undefined on failure. */
export async function readInput(ctx: CommandContext, file: string | undefined): Promise<Buffer | undefined> {
  if (file === undefined || file === '-' || file === '/dev/stdin') return ctx.io.stdin.readAll();
  const path = ctx.sh.resolve(file);
  const node = ctx.sh.host.fs.get(path);
  if (!node) {
    ctx.io.stderr.write(`${ctx.name}: ${file}: No such file or directory\n`);
    return undefined;
  }
  if (node.kind === 'dir') {
    ctx.io.stderr.write(`${ctx.name}: ${file}: Is a directory\n`);
    return undefined;
  }
  if (!ctx.sh.host.fs.canRead(path, ctx.sh.who)) {
    ctx.io.stderr.write(`${ctx.name}: ${file}: Permission denied\n`);
    return undefined;
  }
  return node.data;
}

export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
