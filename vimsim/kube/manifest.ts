/**
 * Static pod manifests as the kubelet reads them from /etc/kubernetes/manifests,
 * and the command line of the real process behind one: the manifest's
 * command/args, with every file it names copied from the simulated host's
 * filesystem into the server's private directory (the "container's" view of
 * its hostPath volumes), loopback addresses meaning the host's own address
 * (127.0.0.1 inside a simulated host is that host), and a data directory that
 * lives as long as the host's own copy of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import type { MemFs } from '../ssh/host/fs';

const ROOT = { name: 'root', uid: 0, home: '/root' };

const Manifest = z.object({
  apiVersion: z.literal('v1'),
  kind: z.literal('Pod'),
  metadata: z.object({ name: z.string().min(1), namespace: z.string().optional(), labels: z.record(z.string(), z.string()).optional() }).passthrough(),
  spec: z.object({
    containers: z.array(z.object({ name: z.string(), image: z.string().optional(), command: z.array(z.string()).optional(), args: z.array(z.string()).optional() }).passthrough()).min(1),
  }).passthrough(),
}).passthrough();

export interface StaticPodSpec {
  /** metadata.name (the API's mirror pod adds "-<node>"). */
  name: string;
  file: string;
  image: string;
  /** command + args of the first container. */
  argv: string[];
  /** The program by its basename: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, ... */
  program: string;
  /** The manifest's bytes, to notice a changed manifest. */
  content: string;
}

export const MANIFEST_DIR = '/etc/kubernetes/manifests';

/** The static pods the kubelet would run now; files it cannot parse are skipped with the kubelet's complaint. */
export function readManifests(memfs: MemFs, dir = MANIFEST_DIR): { pods: StaticPodSpec[]; errors: string[] } {
  const pods: StaticPodSpec[] = [];
  const errors: string[] = [];
  if (!memfs.isDir(dir)) return { pods, errors };
  for (const name of memfs.list(dir)) {
    const file = `${dir}/${name}`;
    // the kubelet ignores dot files and non-manifest extensions
    if (name.startsWith('.') || !/\.(ya?ml|json)$/.test(name) || !memfs.isFile(file)) continue;
    const content = memfs.readFile(file, ROOT).toString('utf8');
    if (content.trim() === '') continue;
    try {
      const m = Manifest.parse(YAML.parse(content));
      const c = m.spec.containers[0];
      const argv = [...(c.command ?? []), ...(c.args ?? [])];
      if (argv.length === 0) throw new Error('the container has no command');
      pods.push({ name: m.metadata.name, file, image: c.image ?? '', argv, program: path.basename(argv[0]), content });
    } catch (err) {
      errors.push(`Could not process manifest file "${file}": ${(err as Error).message.split('\n')[0]}`);
    }
  }
  return { pods, errors };
}

/** `--name=value` flags of an argv (the form kubeadm writes). */
export function flagsOf(argv: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (const a of argv.slice(1)) {
    const m = /^--([^=]+)=(.*)$/s.exec(a);
    if (m) flags.set(m[1], m[2]);
    else if (a.startsWith('--')) flags.set(a.slice(2), 'true');
  }
  return flags;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '0.0.0.0', '[::1]', '::1', '[::]', '::', '']);

/** URLs on loopback (or any address) mean the host's own address inside a simulated host. */
function ownUrls(value: string, address: string, dedupe: boolean): string {
  const parts = value.split(',').map((u) => {
    const m = /^(\w+:\/\/)([^/:]*|\[[^\]]*\]):(\d+)(.*)$/.exec(u.trim());
    return m && LOOPBACK_HOSTS.has(m[2]) ? `${m[1]}${address}:${m[3]}${m[4]}` : u.trim();
  });
  return (dedupe ? [...new Set(parts)] : parts).join(',');
}

/** Flags whose value is a list of URLs a process listens on or dials. */
const URL_FLAGS: Record<string, string[]> = {
  etcd: ['listen-client-urls', 'listen-peer-urls', 'listen-metrics-urls', 'advertise-client-urls', 'initial-advertise-peer-urls'],
  'kube-apiserver': ['etcd-servers'],
};
const LISTEN_FLAGS = new Set(['listen-client-urls', 'listen-peer-urls', 'listen-metrics-urls']);

export interface PreparedProcess {
  argv: string[];
  /** An address the pod would bind that is not the host's: it cannot start, as on a real host. */
  bindError?: string;
}

/**
 * The real command line for `pod` on the host at `address`, with its files under
 * `privateDir` (files/<path> copies, data/<path> for data directories).
 */
export function prepareProcess(pod: StaticPodSpec, binary: string, memfs: MemFs, address: string, privateDir: string): PreparedProcess {
  const filesDir = path.join(privateDir, 'files');
  const dataDirs = new Set(pod.program === 'etcd' ? ['data-dir', 'wal-dir'] : []);
  const out: string[] = [binary];
  const flags = flagsOf(pod.argv);
  let bindError: string | undefined;
  for (const [name, raw] of flags) {
    let value = raw;
    if (URL_FLAGS[pod.program]?.includes(name)) {
      value = ownUrls(value, address, LISTEN_FLAGS.has(name));
      // a simulated host can listen on its own address only
      const foreign = LISTEN_FLAGS.has(name) ? value.split(',').map((u) => /^\w+:\/\/([^/:]+):(\d+)/.exec(u)).find((m) => m && m[1] !== address) : undefined;
      if (foreign) bindError = `listen tcp ${foreign[1]}:${foreign[2]}: bind: cannot assign requested address`;
    }
    if (pod.program === 'kube-apiserver' && name === 'bind-address') {
      if (LOOPBACK_HOSTS.has(value)) value = address;
      else if (value !== address) bindError = `listen tcp ${value}:${flags.get('secure-port') ?? '6443'}: bind: cannot assign requested address`;
    }
    if (dataDirs.has(name)) {
      value = path.join(privateDir, 'data', raw);
      fs.mkdirSync(value, { recursive: true, mode: 0o700 });
    } else if (raw.startsWith('/')) {
      value = raw.split(',').map((p) => copyIn(memfs, p, filesDir)).join(',');
    }
    out.push(`--${name}=${value}`);
  }
  if (pod.program === 'kube-apiserver') {
    if (!flags.has('bind-address')) out.push(`--bind-address=${address}`);
    // the default (lease) endpoint reconciler refuses a loopback advertise address
    if (!flags.has('endpoint-reconciler-type')) out.push('--endpoint-reconciler-type=none');
  }
  return { argv: out, bindError };
}

/** Copies a file (or a directory's files) of the host into the private tree; returns the real path. */
function copyIn(memfs: MemFs, p: string, filesDir: string): string {
  const real = path.join(filesDir, p);
  const copy = (from: string, to: string) => {
    fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
    fs.writeFileSync(to, memfs.readFile(from, ROOT), { mode: 0o600 });
  };
  if (memfs.isFile(p)) copy(p, real);
  else if (memfs.isDir(p)) {
    fs.mkdirSync(real, { recursive: true, mode: 0o700 });
    for (const name of memfs.list(p)) if (memfs.isFile(`${p}/${name}`)) copy(`${p}/${name}`, path.join(real, name));
  }
  return real;
}
