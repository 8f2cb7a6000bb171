/** Builtins that change the shell itself (cd, export, set, exit, ...); everything else is a program. */
import { FsError } from '../host/fs';
import type { Io } from './io';
import type { ShellApi as Shell } from '../commands/types';
import { ExitSignal } from './session';

export type Builtin = (args: string[], io: Io, sh: Shell) => Promise<number> | number;

const cd: Builtin = (args, io, sh) => {
  const target = args.filter((a) => a !== '--')[0] ?? sh.env.get('HOME') ?? sh.user.home;
  const path = target === '-' ? sh.env.get('OLDPWD') ?? sh.cwd : sh.resolve(target);
  const node = sh.host.fs.get(path);
  if (!node) {
    io.stderr.write(`bash: cd: ${target}: No such file or directory\n`);
    return 1;
  }
  if (node.kind !== 'dir') {
    io.stderr.write(`bash: cd: ${target}: Not a directory\n`);
    return 1;
  }
  if (!sh.host.fs.canRead(path, sh.who)) {
    io.stderr.write(`bash: cd: ${target}: Permission denied\n`);
    return 1;
  }
  sh.env.set('OLDPWD', sh.cwd);
  sh.cwd = path;
  sh.env.set('PWD', path);
  return 0;
};

const exportBuiltin: Builtin = (args, _io, sh) => {
  for (const arg of args) {
    if (arg.startsWith('-')) continue;
    const eq = arg.indexOf('=');
    if (eq > 0) sh.env.set(arg.slice(0, eq), arg.slice(eq + 1));
  }
  return 0;
};

const set: Builtin = (args, _io, sh) => {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const on = a.startsWith('-');
    if (a === '-o' || a === '+o') {
      if (args[++i] === 'pipefail') sh.pipefail = on;
      if (args[i] === 'errexit') sh.errexit = on;
    } else if (/^[-+][a-zA-Z]+$/.test(a)) {
      if (a.includes('e')) sh.errexit = on;
    }
  }
  return 0;
};

const source: Builtin = async (args, io, sh) => {
  if (args.length === 0) {
    io.stderr.write('bash: source: filename argument required\n');
    return 2;
  }
  let src: string;
  try {
    src = sh.host.fs.readFile(sh.resolve(args[0]), sh.who).toString('utf8');
  } catch (err) {
    if (!(err instanceof FsError)) throw err;
    io.stderr.write(`bash: ${args[0]}: ${err.message}\n`);
    return 1;
  }
  // Runs in this shell: assignments (e.g. from /etc/os-release) stay.
  return sh.run(src, io, args[0]);
};

const command: Builtin = async (args, io, sh) => {
  if (args[0] === '-v' || args[0] === '-V') {
    let status = 0;
    for (const name of args.slice(1)) {
      if (BUILTINS[name]) io.stdout.write(`${name}\n`);
      else if (typeof sh.findProgram(name) === 'object') io.stdout.write(`${name.includes('/') ? name : `/usr/bin/${name}`}\n`);
      else status = 1;
    }
    return status;
  }
  return args.length === 0 ? 0 : sh.exec(args, io);
};

const type: Builtin = (args, io, sh) => {
  let status = 0;
  for (const name of args.filter((a) => !a.startsWith('-'))) {
    if (BUILTINS[name]) io.stdout.write(`${name} is a shell builtin\n`);
    else if (typeof sh.findProgram(name) === 'object') io.stdout.write(`${name} is /usr/bin/${name}\n`);
    else {
      io.stderr.write(`bash: type: ${name}: not found\n`);
      status = 1;
    }
  }
  return status;
};

const read: Builtin = async (args, io, sh) => {
  const names = args.filter((a) => !a.startsWith('-'));
  const line = await io.stdin.readLine();
  if (line === null) return 1;
  const words = line.trim().split(/\s+/);
  names.forEach((name, i) => sh.env.set(name, i === names.length - 1 ? words.slice(i).join(' ') : words[i] ?? ''));
  if (names.length === 0) sh.env.set('REPLY', line);
  return 0;
};

const noop: Builtin = () => 0;

export const BUILTINS: Record<string, Builtin> = {
  cd,
  export: exportBuiltin,
  unset: (args, _io, sh) => {
    for (const a of args) if (!a.startsWith('-')) sh.env.delete(a);
    return 0;
  },
  set,
  exit: (args, _io, sh) => {
    throw new ExitSignal(args[0] === undefined ? sh.lastStatus : Number(args[0]) & 255);
  },
  source,
  '.': source,
  eval: (args, io, sh) => sh.run(args.join(' '), io, 'bash: eval'),
  exec: async (args, io, sh) => {
    if (args.length === 0) return 0;
    throw new ExitSignal(await sh.exec(args, io));
  },
  command,
  type,
  read,
  shift: (args, _io, sh) => {
    const n = Number(args[0] ?? 1);
    sh.positional = [sh.positional[0], ...sh.positional.slice(1 + n)];
    return 0;
  },
  wait: noop,
  hash: noop,
  alias: noop,
  umask: noop,
  ulimit: noop,
  trap: noop,
  shopt: noop,
};
