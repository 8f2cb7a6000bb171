/** System information and account commands: whoami, id, hostname, uname, lsb_release, usermod, chpasswd, ... */
import { OS } from '../host/base-image';
import { getopt, has, isRoot, value, type CommandContext, type CommandTable } from './types';

function fail(ctx: CommandContext, text: string, status = 1): number {
  ctx.io.stderr.write(`${ctx.name}: ${text}\n`);
  return status;
}

function print(ctx: CommandContext, text: string): number {
  ctx.io.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  return 0;
}

/** `env VAR=x cmd`, `timeout 10 cmd`, `nohup cmd`: run the rest as a program. */
async function runRest(ctx: CommandContext, argv: string[], env?: Map<string, string>): Promise<number> {
  if (argv.length === 0) return 0;
  return (env ? ctx.sh.child({ env }) : ctx.sh).exec(argv, ctx.io, ctx.name);
}

export const SYSTEM_COMMANDS: CommandTable = {
  true: { run: () => 0 },
  ':': { run: () => 0 },
  false: { run: () => 1 },
  // Time is simulated: sleeping returns at once.
  sleep: { run: () => 0 },
  whoami: { run: (ctx) => print(ctx, ctx.sh.user.name) },
  id: {
    run(ctx) {
      const p = getopt(ctx.args);
      const name = p.operands[0] ?? ctx.sh.user.name;
      const acc = ctx.sh.host.accounts.get(name);
      if (!acc) return fail(ctx, `'${name}': no such user`);
      if (has(p, 'u')) return print(ctx, has(p, 'n') ? acc.name : String(acc.uid));
      if (has(p, 'G') || has(p, 'g')) return print(ctx, has(p, 'n') ? [...acc.groups].join(' ') : String(acc.uid));
      return print(ctx, `uid=${acc.uid}(${acc.name}) gid=${acc.uid}(${acc.name}) groups=${[...acc.groups].map((g) => `${g === acc.name ? acc.uid : 999}(${g})`).join(',')}`);
    },
  },
  groups: { run: (ctx) => print(ctx, [...(ctx.sh.host.accounts.get(ctx.args[0] ?? ctx.sh.user.name)?.groups ?? [])].join(' ')) },
  hostname: {
    run(ctx) {
      const p = getopt(ctx.args);
      if (has(p, 'I', 'i')) return print(ctx, has(p, 'I') ? `${ctx.sh.host.address} ` : ctx.sh.host.address);
      if (p.operands[0]) {
        if (!isRoot(ctx)) return fail(ctx, 'you must be root to change the host name');
        ctx.sh.host.hostname = p.operands[0];
        return 0;
      }
      return print(ctx, ctx.sh.host.hostname);
    },
  },
  // iproute2's view of the interfaces: lo and the server's NIC (ens3) with its address (and a VIP keepalived holds there)
  ip: {
    run(ctx) {
      // -4/-6 pick the family (only IPv4 here)
      const p = getopt(ctx.args.filter((a) => a !== '-4' && a !== '-6'));
      const [obj = '', verb = 'show'] = p.operands;
      if (!/^a(d(dr?)?)?$/.test(obj) || !/^(s(h(ow?)?)?|list|ls)$/.test(verb)) return fail(ctx, `Object "${obj}" is unknown, try "ip help".`);
      const addresses = [ctx.sh.host.address, ...(ctx.sh.host.lb?.heldVips() ?? [])];
      if (has(p, 'o')) {
        return print(ctx, [
          '1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever',
          ...addresses.map((a, i) => `2: ens3    inet ${a}/${i === 0 ? 16 : 32} ${i === 0 ? 'brd 127.255.255.255 scope global dynamic ens3' : 'scope global ens3'}\\       valid_lft forever preferred_lft forever`),
        ].join('\n'));
      }
      return print(ctx, [
        '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000',
        '    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00',
        '    inet 127.0.0.1/8 scope host lo',
        '2: ens3: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1450 qdisc fq_codel state UP group default qlen 1000',
        '    link/ether fa:16:3e:00:00:01 brd ff:ff:ff:ff:ff:ff',
        ...addresses.map((a, i) => `    inet ${a}/${i === 0 ? 16 : 32} ${i === 0 ? 'brd 127.255.255.255 scope global dynamic ens3' : 'scope global ens3'}`),
      ].join('\n'));
    },
  },
  hostnamectl: {
    run(ctx) {
      if (ctx.args[0] === 'set-hostname' && ctx.args[1]) {
        if (!isRoot(ctx)) return fail(ctx, 'Could not set hostname: Interactive authentication required.');
        ctx.sh.host.hostname = ctx.args[1];
        return 0;
      }
      return print(ctx, `   Static hostname: ${ctx.sh.host.hostname}\n  Operating System: ${OS.pretty}\n            Kernel: Linux ${OS.kernel}\n      Architecture: x86-64`);
    },
  },
  uname: {
    run(ctx) {
      const p = getopt(ctx.args);
      if (has(p, 'a')) return print(ctx, `Linux ${ctx.sh.host.hostname} ${OS.kernel} #185-Ubuntu SMP x86_64 x86_64 x86_64 GNU/Linux`);
      const parts: string[] = [];
      if (has(p, 's') || p.flags.size === 0) parts.push('Linux');
      if (has(p, 'n')) parts.push(ctx.sh.host.hostname);
      if (has(p, 'r')) parts.push(OS.kernel);
      if (has(p, 'm', 'p', 'i')) parts.push('x86_64');
      return print(ctx, parts.join(' '));
    },
  },
  arch: { run: (ctx) => print(ctx, 'x86_64') },
  nproc: { run: (ctx) => print(ctx, '2') },
  lsb_release: {
    run(ctx) {
      const p = getopt(ctx.args);
      const short = has(p, 's');
      const lines: string[] = [];
      const add = (label: string, v: string) => lines.push(short ? v : `${label}:\t${v}`);
      const all = has(p, 'a');
      if (all || has(p, 'i')) add('Distributor ID', 'Ubuntu');
      if (all || has(p, 'd')) add('Description', OS.pretty);
      if (all || has(p, 'r')) add('Release', OS.version);
      if (all || has(p, 'c')) add('Codename', OS.codename);
      if (all) ctx.io.stderr.write('No LSB modules are available.\n');
      return print(ctx, lines.join('\n'));
    },
  },
  date: {
    run(ctx) {
      const fmt = ctx.args.find((a) => a.startsWith('+'));
      const now = new Date();
      if (fmt === '+%s') return print(ctx, String(Math.floor(now.getTime() / 1000)));
      return print(ctx, now.toUTCString());
    },
  },
  uptime: { run: (ctx) => print(ctx, ' 00:00:00 up 5 min,  1 user,  load average: 0.00, 0.00, 0.00') },
  env: {
    run(ctx) {
      const overlay = new Map<string, string>();
      let i = 0;
      for (; i < ctx.args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(ctx.args[i]); i++) {
        const eq = ctx.args[i].indexOf('=');
        overlay.set(ctx.args[i].slice(0, eq), ctx.args[i].slice(eq + 1));
      }
      if (i < ctx.args.length) return runRest(ctx, ctx.args.slice(i), overlay);
      return print(ctx, [...ctx.sh.env, ...overlay].map(([k, v]) => `${k}=${v}`).join('\n'));
    },
  },
  printenv: { run: (ctx) => (ctx.args[0] ? (ctx.sh.env.has(ctx.args[0]) ? print(ctx, ctx.sh.env.get(ctx.args[0])!) : 1) : print(ctx, [...ctx.sh.env].map(([k, v]) => `${k}=${v}`).join('\n'))) },
  timeout: { run: (ctx) => runRest(ctx, getopt(ctx.args, ['s', 'k', 'signal'], true).operands.slice(1)) },
  nohup: { run: (ctx) => runRest(ctx, ctx.args) },
  which: {
    run(ctx) {
      let status = 0;
      for (const name of getopt(ctx.args).operands) {
        if (typeof ctx.sh.findProgram(name) === 'object') ctx.io.stdout.write(`/usr/bin/${name}\n`);
        else status = 1;
      }
      return status;
    },
  },
  'cloud-init': { run: (ctx) => (ctx.args[0] === 'status' ? print(ctx, 'status: done') : fail(ctx, `${ctx.args[0] ?? ''}: not supported by the simulator`, 2)) },
  usermod: {
    run(ctx) {
      const p = getopt(ctx.args, ['G', 'g', 'groups']);
      if (!isRoot(ctx)) return fail(ctx, 'Permission denied.\nusermod: cannot lock /etc/passwd; try again later.');
      const acc = ctx.sh.host.accounts.get(p.operands[0] ?? '');
      if (!acc) return fail(ctx, `user '${p.operands[0] ?? ''}' does not exist`, 6);
      const groups = (value(p, 'G', 'groups') ?? '').split(',').filter(Boolean);
      if (!has(p, 'a')) for (const g of [...acc.groups]) if (g !== acc.name) acc.groups.delete(g);
      for (const g of groups) acc.groups.add(g);
      return 0;
    },
  },
  gpasswd: {
    run(ctx) {
      if (!isRoot(ctx)) return fail(ctx, 'Permission denied.');
      const [flag, user, group] = ctx.args;
      const acc = ctx.sh.host.accounts.get(user ?? '');
      if (flag !== '-a' || !acc || !group) return fail(ctx, 'usage: gpasswd -a USER GROUP', 2);
      acc.groups.add(group);
      return print(ctx, `Adding user ${user} to group ${group}`);
    },
  },
  groupadd: { run: (ctx) => (isRoot(ctx) ? 0 : fail(ctx, 'Permission denied.', 10)) },
  chpasswd: {
    // Changes take effect for the next SSH login, as on a real host.
    async run(ctx) {
      if (!isRoot(ctx)) return fail(ctx, 'Permission denied.');
      let line: string | null;
      while ((line = await ctx.io.stdin.readLine()) !== null) {
        const colon = line.indexOf(':');
        const acc = ctx.sh.host.accounts.get(line.slice(0, colon));
        if (colon < 0 || !acc) return fail(ctx, `line 1: user '${line.slice(0, Math.max(0, colon))}' does not exist`);
        acc.password = line.slice(colon + 1);
      }
      return 0;
    },
  },
  journalctl: { run: (ctx) => print(ctx, '-- Logs begin at boot. --') },
  df: { run: (ctx) => print(ctx, 'Filesystem     1K-blocks    Used Available Use% Mounted on\n/dev/vda1       20145724 2097152  18048572  11% /') },
};
