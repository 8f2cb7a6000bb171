/**
 * etcdctl of Ubuntu's etcd-client package (3.2, v3 API with ETCDCTL_API=3),
 * as an operator uses it on a master to look after a stacked etcd:
 * `member list`, `member remove <hex id>`, `endpoint health`, against the
 * real etcd members with the TLS files the flags name (read as the caller,
 * so they need root).
 */
import { EtcdClient, EtcdError, hexId, type EtcdMember } from '../../kube/etcd-client';
import { hostResolver } from '../../kube/resolve';
import { getopt, value, type CommandContext, type CommandTable } from './types';

const VALUED = ['endpoints', 'cacert', 'cert', 'key', 'w', 'write-out', 'command-timeout', 'dial-timeout'];

function simpleLine(m: EtcdMember): string {
  const started = Boolean(m.name);
  return `${hexId(m.ID)}, ${started ? 'started' : 'unstarted'}, ${m.name ?? ''}, ${m.peerURLs.join(',')}, ${(m.clientURLs ?? []).join(',')}${m.isLearner ? ', true' : ''}`;
}

function table(members: EtcdMember[]): string {
  const rows = [['ID', 'STATUS', 'NAME', 'PEER ADDRS', 'CLIENT ADDRS'], ...members.map((m) => [hexId(m.ID), m.name ? 'started' : 'unstarted', m.name ?? '', m.peerURLs.join(','), (m.clientURLs ?? []).join(',')])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const fmt = (r: string[]) => `| ${r.map((c, i) => c.padStart(Math.floor((widths[i] + c.length) / 2)).padEnd(widths[i])).join(' | ')} |`;
  return [line, fmt(rows[0]), line, ...rows.slice(1).map(fmt), line].join('\n');
}

async function etcdctl(ctx: CommandContext): Promise<number> {
  const { io, sh } = ctx;
  const p = getopt(ctx.args, VALUED);
  if (sh.env.get('ETCDCTL_API') !== '3') {
    // Ubuntu 20.04's etcdctl speaks the v2 API unless told otherwise; its flags differ
    io.stderr.write(`Incorrect Usage: flag provided but not defined: -${[...p.flags.keys()][0] ?? 'endpoints'}\n\nNAME:\n   etcdctl - A simple command line client for etcd.\n\nset ETCDCTL_API=3 to use the v3 API\n`);
    return 1;
  }
  const [verb, sub, ...rest] = p.operands;
  if (verb === 'version') {
    io.stdout.write('etcdctl version: 3.2.26\nAPI version: 3.2\n');
    return 0;
  }
  const read = (flag: string): string | undefined => {
    const file = value(p, flag);
    if (!file) return undefined;
    const path = sh.resolve(file);
    if (!sh.host.fs.canRead(path, sh.user)) throw new EtcdError(`open ${file}: ${sh.host.fs.isFile(path) ? 'permission denied' : 'no such file or directory'}`, 2);
    return sh.host.fs.readFile(path, sh.user).toString('utf8');
  };
  const resolve = hostResolver(sh.host);
  const endpoints = (value(p, 'endpoints') ?? '127.0.0.1:2379').split(',').map((e) => {
    const url = new URL(/^\w+:\/\//.test(e) ? e : `http://${e}`);
    return { shown: e, dial: `https://${resolve(url.hostname) ?? url.hostname}:${url.port || 2379}` };
  });
  const out = value(p, 'w', 'write-out') ?? 'simple';
  try {
    const tls = { ca: read('cacert') ?? '', cert: read('cert') ?? '', key: read('key') ?? '' };
    const etcd = new EtcdClient(endpoints.map((e) => e.dial), tls);
    if (verb === 'member' && sub === 'list') {
      const members = await etcd.members();
      if (out === 'json') io.stdout.write(`${JSON.stringify({ members: members.map((m) => ({ ...m, ID: `@@${m.ID}@@` })) }).replace(/"@@(\d+)@@"/g, '$1')}\n`);
      else if (out === 'table') io.stdout.write(`${table(members)}\n`);
      else io.stdout.write(members.map((m) => `${simpleLine(m)}\n`).join(''));
      return 0;
    }
    if (verb === 'member' && sub === 'remove') {
      const id = rest[0];
      if (!id || !/^[0-9a-f]+$/i.test(id)) {
        io.stderr.write(`Error: bad member ID arg (strconv.ParseUint: parsing "${id ?? ''}": invalid syntax), expecting ID in Hex\n`);
        return 1;
      }
      await etcd.remove(BigInt(`0x${id}`).toString());
      io.stdout.write(`Member ${id.toLowerCase()} removed from cluster\n`);
      return 0;
    }
    if (verb === 'endpoint' && sub === 'health') {
      let bad = 0;
      for (const e of endpoints) {
        const started = Date.now();
        if (await etcd.healthy(e.dial)) io.stdout.write(`${e.shown} is healthy: successfully committed proposal: took = ${Date.now() - started}ms\n`);
        else {
          bad++;
          io.stderr.write(`${e.shown} is unhealthy: failed to commit proposal: context deadline exceeded\n`);
        }
      }
      if (bad) io.stderr.write('Error: unhealthy cluster\n');
      return bad ? 1 : 0;
    }
    io.stderr.write(`Error: unknown command "${[verb, sub].filter(Boolean).join(' ')}" for "etcdctl"\n`);
    return 1;
  } catch (err) {
    io.stderr.write(`Error: ${err instanceof EtcdError && err.code !== 14 ? `etcdserver: ${err.message.replace(/^etcdserver: /, '')}` : (err as Error).message}\n`);
    return 1;
  }
}

export const ETCDCTL_COMMANDS: CommandTable = {
  etcdctl: { run: etcdctl, available: (host) => host.isInstalled('etcd-client') },
};
