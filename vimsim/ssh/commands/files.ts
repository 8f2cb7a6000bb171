/** File commands over the host's in-memory filesystem (coreutils subset). */
import { createHash } from 'node:crypto';
import path from 'node:path/posix';
import { FsError } from '../host/fs';
import { getopt, has, readInput, value, type CommandContext, type CommandTable } from './types';

function fail(ctx: CommandContext, text: string, status = 1): number {
  ctx.io.stderr.write(`${ctx.name}: ${text}\n`);
  return status;
}

/** Runs an fs operation per operand, reporting errors coreutils style ("cannot remove 'x': ..."). */
function each(ctx: CommandContext, operands: string[], verb: string, fn: (abs: string, arg: string) => void, dest?: string): number {
  let status = 0;
  for (const arg of operands) {
    try {
      fn(ctx.sh.resolve(arg), arg);
    } catch (err) {
      if (!(err instanceof FsError)) throw err;
      status = fail(ctx, `${verb} '${arg}'${dest ? ` to '${dest}'` : ''}: ${err.message}`);
    }
  }
  return status;
}

function parseMode(mode: string, current: number): number | undefined {
  if (/^[0-7]{3,4}$/.test(mode)) return parseInt(mode, 8);
  const m = /^([ugoa]*)([+-=])([rwx]+)$/.exec(mode);
  if (!m) return undefined;
  const who = m[1] === '' || m[1].includes('a') ? 'ugo' : m[1];
  let bits = 0;
  for (const c of m[3]) {
    const b = c === 'r' ? 4 : c === 'w' ? 2 : 1;
    if (who.includes('u')) bits |= b << 6;
    if (who.includes('g')) bits |= b << 3;
    if (who.includes('o')) bits |= b;
  }
  return m[2] === '+' ? current | bits : m[2] === '-' ? current & ~bits : bits;
}

function hashCommand(algorithm: 'sha256' | 'md5') {
  return {
    async run(ctx: CommandContext) {
      const files = getopt(ctx.args).operands;
      let status = 0;
      for (const file of files.length ? files : ['-']) {
        const data = await readInput(ctx, file);
        if (!data) {
          status = 1;
          continue;
        }
        ctx.io.stdout.write(`${createHash(algorithm).update(data).digest('hex')}  ${file}\n`);
      }
      return status;
    },
  };
}

function testExpression(ctx: CommandContext, args: string[]): boolean | undefined {
  const fs = ctx.sh.host.fs;
  if (args[0] === '!') {
    const inner = testExpression(ctx, args.slice(1));
    return inner === undefined ? undefined : !inner;
  }
  const andAt = args.findIndex((a) => a === '-a' || a === '-o');
  if (andAt > 0) {
    const left = testExpression(ctx, args.slice(0, andAt));
    const right = testExpression(ctx, args.slice(andAt + 1));
    if (left === undefined || right === undefined) return undefined;
    return args[andAt] === '-a' ? left && right : left || right;
  }
  if (args.length === 0) return false;
  if (args.length === 1) return args[0] !== '';
  if (args.length === 2) {
    const [op, arg] = args;
    const node = fs.get(ctx.sh.resolve(arg));
    switch (op) {
      case '-e': return node !== undefined || arg === '/dev/null';
      case '-f': return node?.kind === 'file';
      case '-d': return node?.kind === 'dir';
      case '-s': return node?.kind === 'file' && node.data.length > 0;
      case '-r': return node !== undefined && fs.canRead(ctx.sh.resolve(arg), ctx.sh.who);
      case '-w': return node !== undefined && (ctx.sh.user.uid === 0 || node.owner === ctx.sh.user.name);
      case '-x': return node !== undefined && (node.mode & 0o111) !== 0;
      case '-L': case '-h': return false;
      case '-n': return arg !== '';
      case '-z': return arg === '';
      default: return undefined;
    }
  }
  if (args.length === 3) {
    const [a, op, b] = args;
    const [x, y] = [Number(a), Number(b)];
    switch (op) {
      case '=': case '==': return a === b;
      case '!=': return a !== b;
      case '-eq': return x === y;
      case '-ne': return x !== y;
      case '-lt': return x < y;
      case '-le': return x <= y;
      case '-gt': return x > y;
      case '-ge': return x >= y;
      default: return undefined;
    }
  }
  return undefined;
}

function test(ctx: CommandContext): number {
  let args = ctx.args;
  if (ctx.name === '[' || ctx.name === '[[') {
    const close = ctx.name === '[' ? ']' : ']]';
    if (args[args.length - 1] !== close) return fail(ctx, `missing \`${close}'`, 2);
    args = args.slice(0, -1);
  }
  const result = testExpression(ctx, args);
  if (result === undefined) return fail(ctx, `${args.join(' ')}: unary or binary operator expected`, 2);
  return result ? 0 : 1;
}

export const FILE_COMMANDS: CommandTable = {
  cat: {
    async run(ctx) {
      const files = getopt(ctx.args).operands;
      let status = 0;
      for (const file of files.length ? files : ['-']) {
        const data = await readInput(ctx, file);
        if (data) ctx.io.stdout.write(data);
        else status = 1;
      }
      return status;
    },
  },
  tee: {
    async run(ctx) {
      const p = getopt(ctx.args);
      const data = await ctx.io.stdin.readAll();
      ctx.io.stdout.write(data);
      let status = 0;
      for (const file of p.operands) {
        try {
          ctx.sh.host.fs.writeFile(ctx.sh.resolve(file), data, ctx.sh.who, { append: has(p, 'a', 'append') });
        } catch (err) {
          if (!(err instanceof FsError)) throw err;
          status = fail(ctx, `${file}: ${err.message}`);
        }
      }
      return status;
    },
  },
  mkdir: {
    run(ctx) {
      const p = getopt(ctx.args, ['m', 'mode']);
      const mode = value(p, 'm', 'mode');
      return each(ctx, p.operands, 'cannot create directory', (abs) =>
        ctx.sh.host.fs.mkdir(abs, ctx.sh.who, { parents: has(p, 'p', 'parents'), mode: mode ? parseInt(mode, 8) : undefined }),
      );
    },
  },
  rmdir: { run: (ctx) => each(ctx, getopt(ctx.args).operands, 'failed to remove', (abs) => ctx.sh.host.fs.rmdir(abs, ctx.sh.who)) },
  rm: {
    run(ctx) {
      const p = getopt(ctx.args);
      const force = has(p, 'f', 'force');
      const recursive = has(p, 'r', 'R', 'recursive');
      if (p.operands.length === 0 && !force) return fail(ctx, 'missing operand');
      return each(ctx, p.operands, 'cannot remove', (abs) => {
        try {
          ctx.sh.host.fs.remove(abs, ctx.sh.who, { recursive });
        } catch (err) {
          if (!(force && err instanceof FsError && err.code === 'ENOENT')) throw err;
        }
      });
    },
  },
  mv: {
    run(ctx) {
      const ops = getopt(ctx.args).operands;
      if (ops.length < 2) return fail(ctx, 'missing destination file operand');
      const dest = ctx.sh.resolve(ops[ops.length - 1]);
      return each(ctx, ops.slice(0, -1), 'cannot move', (abs) => ctx.sh.host.fs.rename(abs, dest, ctx.sh.who), ops[ops.length - 1]);
    },
  },
  cp: {
    run(ctx) {
      const p = getopt(ctx.args);
      if (p.operands.length < 2) return fail(ctx, 'missing destination file operand');
      const dest = ctx.sh.resolve(p.operands[p.operands.length - 1]);
      const recursive = has(p, 'r', 'R', 'a', 'recursive', 'archive');
      return each(ctx, p.operands.slice(0, -1), 'cannot copy', (abs) => ctx.sh.host.fs.copy(abs, dest, ctx.sh.who, { recursive }), p.operands[p.operands.length - 1]);
    },
  },
  install: {
    // `install -m 0755 -d /etc/apt/keyrings` (Docker's install guide), `install -m 644 src dest`, or
    // `install -m 600 /dev/stdin dest`: a file made with its mode at once, never readable by others in between.
    async run(ctx) {
      const p = getopt(ctx.args, ['m', 'mode', 'o', 'g', 'owner', 'group']);
      const mode = value(p, 'm', 'mode');
      const fs = ctx.sh.host.fs;
      if (has(p, 'd', 'directory')) {
        return each(ctx, p.operands, 'cannot create directory', (abs) => {
          fs.mkdir(abs, ctx.sh.who, { parents: true });
          if (mode) fs.chmod(abs, parseInt(mode, 8), ctx.sh.who);
        });
      }
      const [src, dst] = p.operands.map((o) => ctx.sh.resolve(o));
      if (!src || !dst) return fail(ctx, 'missing destination file operand');
      if (p.operands[0] === '/dev/stdin') {
        const data = await ctx.io.stdin.readAll();
        return each(ctx, [p.operands[1]], 'cannot create regular file', (abs) => {
          const existed = fs.get(abs) !== undefined;
          fs.writeFile(abs, data, ctx.sh.who, { mode: mode ? parseInt(mode, 8) : 0o755, via: 'shell' });
          if (existed && mode) fs.chmod(abs, parseInt(mode, 8), ctx.sh.who);
        });
      }
      return each(ctx, [p.operands[0]], 'cannot install', () => {
        fs.copy(src, dst, ctx.sh.who);
        const target = fs.isDir(dst) ? path.join(dst, path.basename(src)) : dst;
        if (mode) fs.chmod(target, parseInt(mode, 8), ctx.sh.who);
      });
    },
  },
  chmod: {
    run(ctx) {
      const [mode, ...files] = ctx.args.filter((a) => !/^-[Rvfc]+$/.test(a) && a !== '--');
      return each(ctx, files, 'changing permissions of', (abs) => {
        const node = ctx.sh.host.fs.get(abs);
        const next = parseMode(mode ?? '', node?.mode ?? 0o644);
        if (next === undefined) throw new FsError('ENOENT', abs);
        ctx.sh.host.fs.chmod(abs, next, ctx.sh.who);
      });
    },
  },
  chown: {
    run(ctx) {
      const [owner, ...files] = getopt(ctx.args).operands;
      const user = (owner ?? '').split(':')[0];
      const name = /^\d+$/.test(user) ? [...ctx.sh.host.accounts.values()].find((a) => String(a.uid) === user)?.name ?? user : user;
      return each(ctx, files, 'changing ownership of', (abs) => ctx.sh.host.fs.chown(abs, name, ctx.sh.who));
    },
  },
  touch: {
    run(ctx) {
      return each(ctx, getopt(ctx.args).operands, 'cannot touch', (abs) => {
        if (!ctx.sh.host.fs.get(abs)) ctx.sh.host.fs.writeFile(abs, '', ctx.sh.who);
      });
    },
  },
  ls: {
    run(ctx) {
      const p = getopt(ctx.args);
      const fs = ctx.sh.host.fs;
      let status = 0;
      for (const arg of p.operands.length ? p.operands : ['.']) {
        const abs = ctx.sh.resolve(arg);
        const node = fs.get(abs);
        if (!node) {
          status = fail(ctx, `cannot access '${arg}': No such file or directory`, 2);
          continue;
        }
        const names = node.kind === 'dir' && !has(p, 'd') ? fs.list(abs) : [arg];
        const visible = names.filter((n) => has(p, 'a', 'A') || !n.startsWith('.'));
        if (has(p, 'l')) {
          for (const n of visible) {
            const child = node.kind === 'dir' && !has(p, 'd') ? fs.get(path.join(abs, n)) : node;
            if (!child) continue;
            const size = child.kind === 'file' ? child.data.length : 4096;
            ctx.io.stdout.write(`${child.kind === 'dir' ? 'd' : '-'}${modeString(child.mode)} 1 ${child.owner} ${child.owner} ${size} Jan  1 00:00 ${n}\n`);
          }
        } else if (visible.length) ctx.io.stdout.write(`${visible.join('\n')}\n`);
      }
      return status;
    },
  },
  test: { run: test },
  '[': { run: test },
  sha256sum: hashCommand('sha256'),
  md5sum: hashCommand('md5'),
  stat: {
    run(ctx) {
      const p = getopt(ctx.args, ['c', 'format']);
      const format = value(p, 'c', 'format');
      let status = 0;
      for (const arg of p.operands) {
        const abs = ctx.sh.resolve(arg);
        const node = ctx.sh.host.fs.get(abs);
        if (!node) {
          status = fail(ctx, `cannot stat '${arg}': No such file or directory`);
          continue;
        }
        const size = node.kind === 'file' ? node.data.length : 4096;
        const text = format
          ? format.replace(/%([snaUF])/g, (_m, c: string) =>
              c === 's' ? String(size) : c === 'n' ? arg : c === 'a' ? node.mode.toString(8) : c === 'U' ? node.owner : node.kind === 'dir' ? 'directory' : 'regular file')
          : `  File: ${arg}\n  Size: ${size}\n`;
        ctx.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      }
      return status;
    },
  },
  ln: {
    // No symlinks in the simulated filesystem: a link is a copy of the file.
    run(ctx) {
      const p = getopt(ctx.args);
      const [src, dst] = p.operands;
      if (!src || !dst) return fail(ctx, 'missing file operand');
      return each(ctx, [src], 'failed to create link', (abs) => {
        const target = ctx.sh.resolve(dst);
        if (has(p, 'f', 'force') && ctx.sh.host.fs.isFile(target)) ctx.sh.host.fs.remove(target, ctx.sh.who);
        ctx.sh.host.fs.copy(abs, target, ctx.sh.who);
      });
    },
  },
  pwd: { run: (ctx) => (ctx.io.stdout.write(`${ctx.sh.cwd}\n`), 0) },
  basename: { run: (ctx) => (ctx.io.stdout.write(`${path.basename(ctx.args[0] ?? '', ctx.args[1])}\n`), 0) },
  dirname: { run: (ctx) => (ctx.io.stdout.write(`${path.dirname(ctx.args[0] ?? '.')}\n`), 0) },
  realpath: { run: (ctx) => (ctx.io.stdout.write(getopt(ctx.args).operands.map((a) => `${ctx.sh.resolve(a)}\n`).join('')), 0) },
  readlink: { run: (ctx) => (ctx.io.stdout.write(getopt(ctx.args).operands.map((a) => `${ctx.sh.resolve(a)}\n`).join('')), 0) },
};

function modeString(mode: number): string {
  return [6, 3, 0].map((s) => ((mode >> s) & 4 ? 'r' : '-') + ((mode >> s) & 2 ? 'w' : '-') + ((mode >> s) & 1 ? 'x' : '-')).join('');
}
