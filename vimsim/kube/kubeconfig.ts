/**
 * kubeconfig files as kubeadm writes them and clients read them: one cluster,
 * one user, one context. Credentials may be inline (`*-data`, base64) or file
 * paths (relative to the kubeconfig's directory), read from the simulated
 * host's filesystem.
 */
import path from 'node:path/posix';
import YAML from 'yaml';
import { z } from 'zod';
import type { MemFs } from '../ssh/host/fs';

const ROOT = { name: 'root', uid: 0, home: '/root' };

const Kubeconfig = z.object({
  clusters: z.array(z.object({ name: z.string(), cluster: z.object({
    server: z.string(),
    'certificate-authority-data': z.string().optional(),
    'certificate-authority': z.string().optional(),
    'insecure-skip-tls-verify': z.boolean().optional(),
  }).passthrough() })).nullish().transform((v) => v ?? []),
  users: z.array(z.object({ name: z.string(), user: z.object({
    'client-certificate-data': z.string().optional(),
    'client-certificate': z.string().optional(),
    'client-key-data': z.string().optional(),
    'client-key': z.string().optional(),
    token: z.string().optional(),
  }).passthrough() })).nullish().transform((v) => v ?? []),
  contexts: z.array(z.object({ name: z.string(), context: z.object({ cluster: z.string(), user: z.string() }).passthrough() })).nullish().transform((v) => v ?? []),
  'current-context': z.string().optional(),
}).passthrough();
export type KubeconfigDoc = z.infer<typeof Kubeconfig>;

/** What a client needs to talk to an API server. */
export interface KubeCredentials {
  server: string;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  insecure?: boolean;
  /** For messages: the user name of the kubeconfig. */
  userName?: string;
}

export interface BuildKubeconfig {
  clusterName: string;
  server: string;
  caPem: string;
  userName: string;
  contextName?: string;
  /** Inline client certificate and key (admin.conf, ...). */
  certPem?: string;
  keyPem?: string;
  /** Or files (kubelet.conf after the TLS bootstrap). */
  certFile?: string;
  keyFile?: string;
  token?: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

export function buildKubeconfig(b: BuildKubeconfig): string {
  const user: Record<string, string> = {};
  if (b.certPem) user['client-certificate-data'] = b64(b.certPem);
  if (b.keyPem) user['client-key-data'] = b64(b.keyPem);
  if (b.certFile) user['client-certificate'] = b.certFile;
  if (b.keyFile) user['client-key'] = b.keyFile;
  if (b.token) user.token = b.token;
  const context = b.contextName ?? `${b.userName}@${b.clusterName}`;
  return YAML.stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': b64(b.caPem), server: b.server }, name: b.clusterName }],
    contexts: [{ context: { cluster: b.clusterName, user: b.userName }, name: context }],
    'current-context': context,
    kind: 'Config',
    preferences: {},
    users: [{ name: b.userName, user }],
  });
}

export function parseKubeconfig(text: string): KubeconfigDoc {
  return Kubeconfig.parse(YAML.parse(text) ?? {});
}

/** Credentials of the current context; throws with kubectl-like messages when a piece is missing. */
export function credentialsFrom(fs: MemFs, file: string): KubeCredentials {
  const doc = parseKubeconfig(fs.readFile(file, ROOT).toString('utf8'));
  const ctxName = doc['current-context'] ?? doc.contexts[0]?.name;
  const ctx = doc.contexts.find((c) => c.name === ctxName)?.context ?? (doc.contexts.length === 0 && doc.clusters.length === 1 && doc.users.length <= 1 ? { cluster: doc.clusters[0].name, user: doc.users[0]?.name ?? '' } : undefined);
  if (!ctx) throw new Error(`invalid configuration: context "${ctxName ?? ''}" does not exist`);
  const cluster = doc.clusters.find((c) => c.name === ctx.cluster)?.cluster;
  if (!cluster) throw new Error(`invalid configuration: cluster "${ctx.cluster}" does not exist`);
  const user = doc.users.find((u) => u.name === ctx.user)?.user ?? {};
  const dir = path.dirname(file);
  const read = (p: string) => fs.readFile(path.resolve(dir, p), ROOT).toString('utf8');
  const fromData = (d: string | undefined) => (d === undefined ? undefined : Buffer.from(d, 'base64').toString('utf8'));
  return {
    server: cluster.server,
    ca: fromData(cluster['certificate-authority-data']) ?? (cluster['certificate-authority'] ? read(cluster['certificate-authority']) : undefined),
    insecure: cluster['insecure-skip-tls-verify'],
    cert: fromData(user['client-certificate-data']) ?? (user['client-certificate'] ? read(user['client-certificate']) : undefined),
    key: fromData(user['client-key-data']) ?? (user['client-key'] ? read(user['client-key']) : undefined),
    token: user.token,
    userName: ctx.user,
  };
}

/** `https://host:port` → host and port. */
export function serverHostPort(server: string): { host: string; port: number } {
  const u = new URL(server);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 443) };
}
