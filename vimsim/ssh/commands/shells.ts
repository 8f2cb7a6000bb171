/**
 * bash/sh and sudo. sudo follows the account's policy: cloud images' default
 * user has NOPASSWD sudo; an account that needs its password gets it from
 * stdin with -S (checked, three attempts), and without -S there is no
 * terminal to ask on, exactly as over a non-pty SSH exec channel.
 */
import { getopt, has, value, type CommandContext, type CommandTable } from './types';

/** Environment sudo keeps by default (env_reset); -E keeps everything. */
const SUDO_KEEP = ['TERM', 'LANG', 'LC_ALL', 'DISPLAY', 'COLORS', 'XAUTHORITY'];
const SECURE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin';

async function shell(ctx: CommandContext): Promise<number> {
  const args = ctx.args;
  let i = 0;
  let errexit = false;
  let pipefail = false;
  let command: string | undefined;
  for (; i < args.length && /^[-+]/.test(args[i]); i++) {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    if (a === '-o' || a === '+o') {
      if (args[++i] === 'pipefail') pipefail = true;
      continue;
    }
    if (a.startsWith('--')) continue; // --login, --norc, --noprofile
    if (a.includes('e')) errexit = true;
    if (a.includes('c')) command = '';
  }
  if (command !== undefined) {
    if (i >= args.length) {
      ctx.io.stderr.write(`${ctx.name}: -c: option requires an argument\n`);
      return 2;
    }
    command = args[i];
    const child = ctx.sh.child({ positional: args.length > i + 1 ? args.slice(i + 1) : [ctx.name] });
    Object.assign(child, { errexit, pipefail });
    return child.run(command, ctx.io, `${ctx.name}: -c`);
  }
  if (i < args.length) return ctx.sh.runScriptFile(ctx.sh.resolve(args[i]), args.slice(i + 1), ctx.io);
  // `bash -s` / plain `bash`: the script comes on stdin.
  const src = (await ctx.io.stdin.readAll()).toString('utf8');
  const child = ctx.sh.child({ positional: [ctx.name, ...args.slice(i)] });
  Object.assign(child, { errexit, pipefail });
  return child.run(src, ctx.io, ctx.name);
}

async function authenticate(ctx: CommandContext, p: ReturnType<typeof getopt>): Promise<number | undefined> {
  const { sh, io } = ctx;
  const me = sh.user;
  if (me.uid === 0 || me.sudo === 'nopasswd' || sh.session.sudoAuthenticated) return undefined;
  if (has(p, 'n', 'non-interactive')) {
    io.stderr.write('sudo: a password is required\n');
    return 1;
  }
  if (!has(p, 'S', 'stdin') && !sh.session.tty) {
    io.stderr.write('sudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper\nsudo: a password is required\n');
    return 1;
  }
  const prompt = value(p, 'p', 'prompt') ?? `[sudo] password for ${me.name}: `;
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (prompt) io.stderr.write(prompt.replace(/%p|%u/g, me.name));
    const line = await io.stdin.readLine();
    if (line === null) {
      io.stderr.write(attempt === 1 ? 'sudo: no password was provided\n' : `sudo: ${attempt - 1} incorrect password attempt${attempt > 2 ? 's' : ''}\n`);
      return 1;
    }
    if (me.password !== undefined && line === me.password) {
      if (me.sudo === 'none') return deny(ctx);
      sh.session.sudoAuthenticated = true;
      return undefined;
    }
    io.stderr.write('Sorry, try again.\n');
  }
  io.stderr.write('sudo: 3 incorrect password attempts\n');
  return 1;
}

function deny(ctx: CommandContext): number {
  ctx.io.stderr.write(`${ctx.sh.user.name} is not in the sudoers file.  This incident will be reported.\n`);
  return 1;
}

async function sudo(ctx: CommandContext): Promise<number> {
  const { sh, io } = ctx;
  const p = getopt(ctx.args, ['u', 'g', 'p', 'C', 'D', 'user', 'group', 'prompt'], true);
  if (has(p, 'k', 'K', 'reset-timestamp')) sh.session.sudoAuthenticated = false;
  if (has(p, 'l', 'list')) {
    const denied = await authenticate(ctx, p);
    if (denied !== undefined) return denied;
    io.stdout.write(`User ${sh.user.name} may run the following commands on ${sh.host.hostname}:\n    (ALL : ALL) ${sh.user.sudo === 'nopasswd' ? 'NOPASSWD: ' : ''}ALL\n`);
    return 0;
  }
  let operands = p.operands;
  if (operands.length === 0 && !has(p, 'v', 'validate', 'i', 's', 'k')) {
    io.stderr.write('usage: sudo -h | -K | -k | -V\nusage: sudo [-AbEHknPS] [-C num] [-D directory] [-g group] [-h host] [-p prompt] [-u user] [command]\n');
    return 1;
  }
  const targetName = value(p, 'u', 'user') ?? 'root';
  const target = sh.host.accounts.get(targetName.replace(/^#0$/, 'root'));
  if (!target) {
    io.stderr.write(`sudo: unknown user: ${targetName}\n`);
    return 1;
  }
  const denied = await authenticate(ctx, p);
  if (denied !== undefined) return denied;
  if (operands.length === 0 && has(p, 'v', 'validate', 'k')) return 0;

  const env = new Map<string, string>();
  if (has(p, 'E', 'preserve-env')) for (const [k, v] of sh.env) env.set(k, v);
  else for (const k of SUDO_KEEP) if (sh.env.has(k)) env.set(k, sh.env.get(k)!);
  env.set('HOME', target.home);
  env.set('USER', target.name);
  env.set('LOGNAME', target.name);
  env.set('SHELL', '/bin/bash');
  env.set('PATH', SECURE_PATH);
  env.set('SUDO_USER', sh.user.name);
  while (operands.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(operands[0])) {
    const eq = operands[0].indexOf('=');
    env.set(operands[0].slice(0, eq), operands[0].slice(eq + 1));
    operands = operands.slice(1);
  }
  const asTarget = sh.as(target, env);
  if (has(p, 'i', 'login', 's', 'shell')) {
    if (has(p, 'i', 'login') && sh.host.fs.isDir(target.home)) asTarget.cwd = target.home;
    return operands.length ? asTarget.run(operands.join(' '), io, 'bash: -c') : asTarget.exec(['bash'], io);
  }
  if (asTarget.findProgram(operands[0]) === undefined) {
    io.stderr.write(`sudo: ${operands[0]}: command not found\n`);
    return 1;
  }
  return asTarget.exec(operands, io, 'sudo');
}

export const SHELL_COMMANDS: CommandTable = {
  bash: { run: shell },
  sh: { run: shell },
  dash: { run: shell },
  sudo: { run: sudo },
};
