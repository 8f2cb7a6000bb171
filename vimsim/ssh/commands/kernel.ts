/** modprobe, lsmod, sysctl, swapoff/swapon and free over the simulated kernel (host/kernel.ts). */
import { fstabSwaps, loadModule, parseSysctlFile, readSysctl, setSwap, swapOn, SWAP_FILE, sysctlFiles, sysctlPath, writeSysctl } from '../host/kernel';
import { getopt, has, isRoot, type CommandContext, type CommandTable } from './types';

const ROOT = { name: 'root', uid: 0, home: '/root' };

function modprobe(ctx: CommandContext): number {
  const p = getopt(ctx.args, ['C', 'config', 'd', 'dirname']);
  const names = has(p, 'a', 'all') ? p.operands : p.operands.slice(0, 1);
  if (names.length === 0) {
    ctx.io.stderr.write('modprobe: ERROR: missing parameters. See -h.\n');
    return 1;
  }
  for (const name of names) {
    if (has(p, 'r', 'remove')) {
      if (!isRoot(ctx)) {
        ctx.io.stderr.write(`modprobe: ERROR: could not remove '${name}': Operation not permitted\n`);
        return 1;
      }
      ctx.sh.host.kernel.modules.delete(name.replace(/-/g, '_'));
      continue;
    }
    const mod = name.replace(/-/g, '_');
    if (!isRoot(ctx) && !ctx.sh.host.kernel.modules.has(mod)) {
      ctx.io.stderr.write(`modprobe: ERROR: could not insert '${mod}': Operation not permitted\n`);
      return 1;
    }
    const error = loadModule(ctx.sh.host, name);
    if (error) {
      ctx.io.stderr.write(`${error}\n`);
      return 1;
    }
  }
  return 0;
}

function lsmod(ctx: CommandContext): number {
  const rows = [...ctx.sh.host.kernel.modules].sort().map((m) => `${m.padEnd(28)}${String(16384 + m.length * 1024).padStart(8)}  0`);
  ctx.io.stdout.write(`Module                  Size  Used by\n${rows.join('\n')}\n`);
  return 0;
}

/** One `key=value` or `key` operand; returns the exit status. */
function sysctlOne(ctx: CommandContext, arg: string, quiet: boolean, valueOnly: boolean, write: boolean): number {
  const { host } = ctx.sh;
  const eq = arg.indexOf('=');
  const key = (eq >= 0 ? arg.slice(0, eq) : arg).trim().replace(/\//g, '.');
  if (eq < 0 && !write) {
    const v = readSysctl(host, key);
    if (v === undefined) {
      ctx.io.stderr.write(`sysctl: cannot stat ${sysctlPath(key)}: No such file or directory\n`);
      return 255;
    }
    ctx.io.stdout.write(valueOnly ? `${v}\n` : `${key} = ${v}\n`);
    return 0;
  }
  if (eq < 0) {
    ctx.io.stderr.write(`sysctl: "${arg}" must be of the form name=value\n`);
    return 255;
  }
  const value = arg.slice(eq + 1).trim();
  if (!isRoot(ctx)) {
    ctx.io.stderr.write(`sysctl: permission denied on key "${key}"\n`);
    return 255;
  }
  if (!writeSysctl(host, key, value)) {
    ctx.io.stderr.write(`sysctl: cannot stat ${sysctlPath(key)}: No such file or directory\n`);
    return 255;
  }
  if (!quiet) ctx.io.stdout.write(valueOnly ? `${value}\n` : `${key} = ${value}\n`);
  return 0;
}

function sysctl(ctx: CommandContext): number {
  const p = getopt(ctx.args, ['p', 'load']);
  const quiet = has(p, 'q', 'quiet');
  const valueOnly = has(p, 'n', 'values');
  const { host } = ctx.sh;
  const applyFile = (file: string): number => {
    let status = 0;
    for (const [key, value] of parseSysctlFile(host.fs.readFile(file, ROOT).toString('utf8'))) {
      if (sysctlOne(ctx, `${key}=${value}`, quiet, valueOnly, true) !== 0) status = 1;
    }
    return status;
  };
  if (has(p, 'system')) {
    let status = 0;
    for (const file of sysctlFiles(host)) {
      if (!quiet) ctx.io.stdout.write(`* Applying ${file} ...\n`);
      status |= applyFile(file);
    }
    return status;
  }
  if (has(p, 'p', 'load')) {
    const file = typeof p.flags.get('p') === 'string' ? (p.flags.get('p') as string) : typeof p.flags.get('load') === 'string' ? (p.flags.get('load') as string) : '/etc/sysctl.conf';
    if (!host.fs.isFile(ctx.sh.resolve(file))) {
      ctx.io.stderr.write(`sysctl: cannot open "${file}": No such file or directory\n`);
      return 255;
    }
    return applyFile(ctx.sh.resolve(file)) === 0 ? 0 : 255;
  }
  if (has(p, 'a', 'A', 'all')) {
    for (const key of allKeys(ctx)) ctx.io.stdout.write(`${key} = ${readSysctl(host, key)}\n`);
    return 0;
  }
  let status = 0;
  for (const arg of p.operands) status = Math.max(status, sysctlOne(ctx, arg, quiet, valueOnly, has(p, 'w', 'write')));
  return status;
}

function allKeys(ctx: CommandContext): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of ctx.sh.host.fs.list(dir)) {
      const p = `${dir}/${name}`;
      if (ctx.sh.host.fs.isDir(p)) walk(p);
      else out.push(p.slice('/proc/sys/'.length).replace(/\//g, '.'));
    }
  };
  walk('/proc/sys');
  return out.sort();
}

function swapoff(ctx: CommandContext): number {
  const p = getopt(ctx.args);
  const targets = has(p, 'a', 'all') ? (swapOn(ctx.sh.host) ? [SWAP_FILE] : []) : p.operands;
  for (const t of targets) {
    if (!isRoot(ctx)) {
      ctx.io.stderr.write(`swapoff: ${t}: swapoff failed: Operation not permitted\n`);
      return 1;
    }
    if (t !== SWAP_FILE || !swapOn(ctx.sh.host)) {
      ctx.io.stderr.write(`swapoff: ${t}: swapoff failed: Invalid argument\n`);
      return 4;
    }
    setSwap(ctx.sh.host, false);
  }
  return 0;
}

function swapon(ctx: CommandContext): number {
  const p = getopt(ctx.args);
  const { host } = ctx.sh;
  if (has(p, 'show', 's', 'summary') || (p.operands.length === 0 && !has(p, 'a', 'all'))) {
    if (swapOn(host)) ctx.io.stdout.write(has(p, 's', 'summary') ? `Filename\t\t\t\tType\t\tSize\tUsed\tPriority\n${SWAP_FILE}                               \tfile    \t2097148\t0\t-2\n` : `NAME      TYPE SIZE USED PRIO\n${SWAP_FILE} file   2G   0B   -2\n`);
    return 0;
  }
  const targets = has(p, 'a', 'all') ? fstabSwaps(host) : p.operands;
  for (const t of targets) {
    if (!isRoot(ctx)) {
      ctx.io.stderr.write(`swapon: ${t}: swapon failed: Operation not permitted\n`);
      return 1;
    }
    if (t !== SWAP_FILE || !host.fs.isFile(SWAP_FILE)) {
      ctx.io.stderr.write(`swapon: cannot open ${t}: No such file or directory\n`);
      return has(p, 'a', 'all') ? 0 : 4;
    }
    setSwap(host, true);
  }
  return 0;
}

export const KERNEL_COMMANDS: CommandTable = {
  modprobe: { run: modprobe },
  lsmod: { run: lsmod },
  sysctl: { run: sysctl },
  swapoff: { run: swapoff },
  swapon: { run: swapon },
  free: {
    run(ctx) {
      const swap = swapOn(ctx.sh.host) ? '        2097148           0     2097148' : '              0           0           0';
      ctx.io.stdout.write(`              total        used        free      shared  buff/cache   available\nMem:        4030612      512000     3000000        1024      518612     3300000\nSwap:${swap}\n`);
      return 0;
    },
  },
};
