/**
 * A minimal kubectl on the simulated hosts that really calls the API server
 * with the kubeconfig's credentials: `get nodes` (-o wide|name|json),
 * `get --raw PATH`, `version`, `cluster-info`, `cordon`, `uncordon`, `drain`
 * (vimsim/kube/drain.ts). Its version is the installed package's. Errors
 * read as kubectl's.
 */
import { KubeApiError, KubeClient } from '../../kube/client';
import { drain, setUnschedulable } from '../../kube/drain';
import { parseDuration } from '@nfv-orchestrator/lib/go-duration';
import { credentialsFrom } from '../../kube/kubeconfig';
import { hostResolver } from '../../kube/resolve';
import { installedKubeVersion } from '../host/kube-packages';
import { getopt, has, value, type CommandContext, type CommandTable } from './types';

interface NodeObj {
  metadata: { name: string; creationTimestamp: string; labels?: Record<string, string> };
  spec?: { unschedulable?: boolean };
  status?: { conditions?: { type: string; status: string }[]; nodeInfo?: { kubeletVersion?: string; osImage?: string; kernelVersion?: string; containerRuntimeVersion?: string }; addresses?: { type: string; address: string }[] };
}

function age(since: string): string {
  const s = Math.max(0, Math.floor((Date.now() - Date.parse(since)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 600) return `${Math.floor(s / 60)}m${s % 60 ? `${s % 60}s` : ''}`;
  if (s < 10_800) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((v, i) => (i === r.length - 1 ? v : v.padEnd(widths[i] + 3))).join('').trimEnd()).join('\n') + '\n';
}

function nodeRows(nodes: NodeObj[], wide: boolean): string[][] {
  const head = ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', ...(wide ? ['INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME'] : [])];
  return [head, ...nodes.map((n) => {
    const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    const roles = Object.keys(n.metadata.labels ?? {}).filter((l) => l.startsWith('node-role.kubernetes.io/')).map((l) => l.split('/')[1]).sort().join(',') || '<none>';
    const info = n.status?.nodeInfo ?? {};
    return [
      n.metadata.name, `${ready ? 'Ready' : 'NotReady'}${n.spec?.unschedulable ? ',SchedulingDisabled' : ''}`, roles, age(n.metadata.creationTimestamp), info.kubeletVersion ?? '',
      ...(wide ? [n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '<none>', '<none>', info.osImage ?? '', info.kernelVersion ?? '', info.containerRuntimeVersion ?? ''] : []),
    ];
  })];
}

function kubeErrorText(err: unknown, server: string): string {
  if (err instanceof KubeApiError) {
    if (err.status === 401) return 'error: You must be logged in to the server (Unauthorized)';
    if (err.status > 0) return `Error from server (${err.reason}): ${err.message}`;
    if (err.reason === 'ECONNREFUSED') return `The connection to the server ${new URL(server).host} was refused - did you specify the right host or port?`;
    return `Unable to connect to the server: ${err.message.replace(/^Get "[^"]*": /, '')}`;
  }
  return `error: ${(err as Error).message}`;
}

async function kubectl(ctx: CommandContext): Promise<number> {
  const p = getopt(ctx.args, ['kubeconfig', 'o', 'output', 'raw', 'n', 'namespace', 'context', 's', 'server', 'timeout', 'grace-period', 'request-timeout']);
  const [verb, resource] = p.operands;
  const { host } = ctx.sh;
  const clientVersion = installedKubeVersion(host, 'kubectl') ?? 'v1.37.2';
  if (verb === 'version' && has(p, 'client')) {
    ctx.io.stdout.write(`Client Version: ${clientVersion}\nKustomize Version: v5.8.1\n`);
    return 0;
  }
  const file = value(p, 'kubeconfig') ?? ctx.sh.env.get('KUBECONFIG') ?? `${ctx.sh.env.get('HOME') ?? ctx.sh.user.home}/.kube/config`;
  const path = ctx.sh.resolve(file);
  if (!host.fs.isFile(path)) {
    if (value(p, 'kubeconfig')) {
      ctx.io.stderr.write(`error: stat ${file}: no such file or directory\n`);
      return 1;
    }
    ctx.io.stderr.write('E1201 00:00:00.000000    4242 memcache.go:265] "Unhandled Error" err="couldn\'t get current server API group list: Get \\"http://localhost:8080/api?timeout=32s\\": dial tcp 127.0.0.1:8080: connect: connection refused"\nThe connection to the server localhost:8080 was refused - did you specify the right host or port?\n');
    return 1;
  }
  if (!host.fs.canRead(path, ctx.sh.who)) {
    ctx.io.stderr.write(`error: error loading config file "${file}": open ${file}: permission denied\n`);
    return 1;
  }
  const server = value(p, 's', 'server');
  const creds = { ...credentialsFrom(host.fs, path), ...(server ? { server } : {}) };
  const client = new KubeClient(creds, { resolve: hostResolver(host), timeoutMs: 30_000 });
  try {
    if (verb === 'get' && value(p, 'raw')) {
      const body = await client.request('GET', value(p, 'raw')!);
      ctx.io.stdout.write(typeof body === 'string' ? body : JSON.stringify(body));
      return 0;
    }
    if (verb === 'get' && (resource === 'nodes' || resource === 'node' || resource === 'no')) {
      const list = await client.get<{ items: NodeObj[] }>('/api/v1/nodes');
      const o = value(p, 'o', 'output');
      if (o === 'json') ctx.io.stdout.write(`${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: list.items }, null, 4)}\n`);
      else if (o === 'name') ctx.io.stdout.write(list.items.map((n) => `node/${n.metadata.name}\n`).join(''));
      else if (list.items.length === 0) ctx.io.stderr.write('No resources found\n');
      else ctx.io.stdout.write(table(nodeRows(list.items, o === 'wide')));
      return 0;
    }
    if (verb === 'version') {
      const v = await client.get<{ gitVersion: string }>('/version');
      ctx.io.stdout.write(`Client Version: ${clientVersion}\nKustomize Version: v5.8.1\nServer Version: ${v.gitVersion}\n`);
      return 0;
    }
    if ((verb === 'cordon' || verb === 'uncordon' || verb === 'drain') && !resource) {
      ctx.io.stderr.write(`error: USAGE: ${verb} NODE [flags]\nSee 'kubectl ${verb} -h' for help and examples\n`);
      return 1;
    }
    const out = (l: string) => ctx.io.stdout.write(`${l}\n`);
    if (verb === 'cordon' || verb === 'uncordon') {
      await setUnschedulable(client, resource, verb === 'cordon', out);
      return 0;
    }
    if (verb === 'drain') {
      const timeout = value(p, 'timeout');
      const timeoutMs = timeout === undefined ? 0 : parseDuration(timeout);
      if (timeoutMs === undefined) {
        ctx.io.stderr.write(`error: invalid argument "${timeout}" for "--timeout" flag: time: invalid duration "${timeout}"\n`);
        return 1;
      }
      return await drain(client, resource, {
        ignoreDaemonsets: has(p, 'ignore-daemonsets'), deleteEmptydirData: has(p, 'delete-emptydir-data', 'delete-local-data'), force: has(p, 'force'),
        timeoutMs, out, err: (l) => ctx.io.stderr.write(`${l}\n`),
      });
    }
    if (verb === 'cluster-info') {
      await client.get('/version');
      ctx.io.stdout.write(`Kubernetes control plane is running at ${creds.server}\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n`);
      return 0;
    }
    ctx.io.stderr.write(`error: the simulated kubectl knows "get nodes", "get --raw", "version", "cluster-info", "cordon", "uncordon" and "drain", not "${p.operands.join(' ')}"\n`);
    return 1;
  } catch (err) {
    ctx.io.stderr.write(`${kubeErrorText(err, creds.server)}\n`);
    return 1;
  } finally {
    client.close();
  }
}

export const KUBECTL_COMMANDS: CommandTable = {
  kubectl: { run: kubectl, available: (host) => host.isInstalled('kubectl') },
};
