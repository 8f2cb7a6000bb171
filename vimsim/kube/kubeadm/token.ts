/** `kubeadm token create|list|delete|generate` against the real API server, with a kubeconfig (admin.conf by default). */
import { KubeClient, isNotFound } from '../client';
import { formatDuration } from '@nfv-orchestrator/lib/go-duration';
import { credentialsFrom, serverHostPort } from '../kubeconfig';
import { caCertHash, parseCert } from '../pki';
import { hostResolver } from '../resolve';
import { BOOTSTRAP_GROUP, createTokens, randomToken } from './bootstrap';
import type { KubeadmIo } from './init';

export interface TokenFlags {
  kubeconfig: string;
  ttl?: string;
  description?: string;
  usages?: string[];
  groups?: string[];
  printJoinCommand: boolean;
}

function client(io: KubeadmIo, kubeconfig: string): KubeClient {
  if (!io.host.fs.isFile(kubeconfig)) throw new Error(`failed to load admin kubeconfig: open ${kubeconfig}: no such file or directory`);
  return new KubeClient(credentialsFrom(io.host.fs, kubeconfig), { resolve: hostResolver(io.host) });
}

export async function tokenCreate(io: KubeadmIo, given: string | undefined, f: TokenFlags): Promise<void> {
  const token = given ?? randomToken();
  if (!/^[a-z0-9]{6}\.[a-z0-9]{16}$/.test(token)) throw new Error(`the bootstrap token "${token.replace(/\..*$/, '.…')}" was not of the form "^([a-z0-9]{6})\\.([a-z0-9]{16})$"`);
  io.host.extraSecrets.add(token);
  io.host.extraSecrets.add(token.split('.')[1]);
  const c = client(io, f.kubeconfig);
  try {
    await createTokens(c, [{ token, ttl: f.ttl, description: f.description, usages: f.usages, groups: f.groups }]);
  } finally {
    c.close();
  }
  if (!f.printJoinCommand) {
    io.out(token);
    return;
  }
  const creds = credentialsFrom(io.host.fs, f.kubeconfig);
  const { host, port } = serverHostPort(creds.server);
  const hash = creds.ca ? caCertHash(parseCert(creds.ca)) : '';
  io.out(`kubeadm join ${host}:${port} --token ${token} --discovery-token-ca-cert-hash ${hash} `);
}

interface TokenSecret { metadata: { name: string }; data?: Record<string, string> }

export async function tokenList(io: KubeadmIo, kubeconfig: string): Promise<void> {
  const c = client(io, kubeconfig);
  try {
    const list = await c.get<{ items: TokenSecret[] }>('/api/v1/namespaces/kube-system/secrets?fieldSelector=type%3Dbootstrap.kubernetes.io%2Ftoken');
    const rows = list.items.map((s) => {
      const d = Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
      const expires = d.expiration;
      const ttl = expires ? formatDuration(Math.max(0, Date.parse(expires) - Date.now())).replace(/(\d+h)\d+m[\d.]+s$/, '$1').replace(/(\d+m)[\d.]+s$/, '$1') : '<forever>';
      const usages = Object.keys(d).filter((k) => k.startsWith('usage-bootstrap-') && d[k] === 'true').map((k) => k.slice('usage-bootstrap-'.length)).sort().join(',');
      return [`${d['token-id']}.${d['token-secret']}`, ttl, expires ?? '<never>', usages, d.description || '<none>', d['auth-extra-groups'] ?? BOOTSTRAP_GROUP];
    });
    const head = ['TOKEN', 'TTL', 'EXPIRES', 'USAGES', 'DESCRIPTION', 'EXTRA GROUPS'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const r of [head, ...rows]) io.out(r.map((v, i) => (i === r.length - 1 ? v : v.padEnd(widths[i] + 3))).join(''));
  } finally {
    c.close();
  }
}

export async function tokenDelete(io: KubeadmIo, kubeconfig: string, ids: string[]): Promise<void> {
  const c = client(io, kubeconfig);
  try {
    for (const t of ids) {
      const id = t.split('.')[0];
      try {
        await c.delete(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${id}`);
      } catch (err) {
        if (isNotFound(err)) throw new Error(`failed to delete bootstrap token with id "${id}": secrets "bootstrap-token-${id}" not found`);
        throw err;
      }
      io.out(`bootstrap token "${id}" deleted`);
    }
  } finally {
    c.close();
  }
}
