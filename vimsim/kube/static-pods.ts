/**
 * The kubelet's static pods on one simulated host: one per manifest in
 * /etc/kubernetes/manifests. etcd and kube-apiserver are real processes (see
 * manifest.ts); kube-controller-manager and kube-scheduler are simulated
 * components of this simulator. A manifest removed stops its pod, a changed
 * one restarts it with the files as they are then, a crashed pod is started
 * again with a doubling back-off (CrashLoopBackOff). Like containers under
 * containerd, pods keep running while the kubelet is stopped: only a running
 * kubelet acts on manifest changes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ComponentFactory, NodeParts, SimComponent, StaticPodView } from './node-parts';
import { prepareProcess, readManifests, flagsOf, type StaticPodSpec } from './manifest';
import { RealProcess } from './processes';

interface Pod {
  spec: StaticPodSpec;
  hash: string;
  process?: RealProcess;
  component?: SimComponent;
  restarts: number;
  startedAt?: string;
  /** The last exit of a crashed process: code and its last log lines. */
  lastExit?: { code: number | null; signal: string | null; at: string; log: string[] };
  error?: string;
  /** The image could not be pulled (no binary of its version): no container exists. */
  pullError?: string;
  retry?: NodeJS.Timeout;
}

const MAX_BACKOFF_FACTOR = 16;

/** containerd's answer for a tag the registry does not have. */
export const notFound = (image: string) => `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`;
const ROOT = { name: 'root', uid: 0, home: '/root' };

export class StaticPods {
  private readonly pods = new Map<string, Pod>();
  private chain: Promise<void> = Promise.resolve();
  manifestErrors: string[] = [];

  constructor(
    private readonly node: NodeParts,
    private readonly components: Record<string, ComponentFactory>,
  ) {}

  /** Brings the running pods in line with the manifests (serialised: one reconcile at a time). */
  reconcile(): Promise<void> {
    this.chain = this.chain.then(() => this.doReconcile()).catch((err: unknown) => this.node.log.error({ err, server: this.node.host.serverId }, 'static pods could not be reconciled'));
    return this.chain;
  }

  /** Stops every pod (kubeadm reset's container removal, a server going down), then runs `after` before any other reconcile. */
  stopAll(after?: () => void, graceMs?: number): Promise<void> {
    this.chain = this.chain.then(async () => {
      // the API server first: one whose etcd vanishes under it takes its whole grace period to stop
      await Promise.all([...this.pods.keys()].filter((k) => this.pods.get(k)?.spec.program !== 'etcd').map((k) => this.stopPod(k, graceMs)));
      await Promise.all([...this.pods.keys()].map((k) => this.stopPod(k, graceMs)));
      after?.();
    });
    return this.chain;
  }

  get(name: string): Pod | undefined {
    return this.pods.get(name);
  }

  /** The running pod of a program (kube-apiserver, etcd, ...). */
  byProgram(program: string): Pod | undefined {
    return [...this.pods.values()].find((p) => p.spec.program === program);
  }

  isRunning(program: string): boolean {
    const pod = this.byProgram(program);
    return Boolean(pod && (pod.process?.running || pod.component));
  }

  private async doReconcile(): Promise<void> {
    if (!this.node.kubeletRunning) return;
    const { pods: specs, errors } = readManifests(this.node.host.fs, this.node.staticPodPath);
    this.manifestErrors = errors;
    const wanted = new Map(specs.map((s) => [s.name, s]));
    const gone = [...this.pods].filter(([name, pod]) => !wanted.has(name) || hashOf(wanted.get(name)!) !== pod.hash).map(([name]) => name);
    // the API server before its etcd (see stopAll)
    await Promise.all(gone.filter((n) => this.pods.get(n)?.spec.program !== 'etcd').map((n) => this.stopPod(n)));
    await Promise.all(gone.map((n) => this.stopPod(n)));
    for (const spec of specs) if (!this.pods.has(spec.name)) this.startPod(spec, 0);
  }

  private startPod(spec: StaticPodSpec, restarts: number): void {
    const pod: Pod = { spec, hash: hashOf(spec), restarts, startedAt: new Date().toISOString() };
    this.pods.set(spec.name, pod);
    const image = this.node.runtime.imageState(spec.program, spec.image, this.node.host.serverId);
    if ('pulling' in image) {
      // not pullable yet: the kubelet backs off and pulls again (ImagePullBackOff), until it comes
      pod.pullError = `Failed to pull image "${spec.image}": ${image.pulling}`;
      pod.error = pod.pullError;
      this.scheduleRestart(pod);
      return;
    }
    const factory = this.components[spec.program];
    if (factory) {
      pod.component = factory(this.node, flagsOf(spec.argv));
      pod.component.start();
      return;
    }
    if ('notFound' in image) {
      // a tag no binary was built for: containerd cannot pull it, the kubelet backs off (ImagePullBackOff)
      pod.pullError = `Failed to pull image "${spec.image}": ${notFound(spec.image)}`;
      pod.error = pod.pullError;
      this.node.log.warn({ server: this.node.host.serverId, pod: spec.name, error: pod.error }, 'static pod image not pulled');
      return;
    }
    if ('notSimulated' in image) {
      // an image this simulator cannot run: the pod stays "running" doing nothing, as a sleeping container would
      pod.error = spec.program === 'etcd' || spec.program === 'kube-apiserver'
        ? `no ${spec.program} binary: the simulator was started without the Kubernetes toolchain (VIMSIM_KUBE_APISERVER / VIMSIM_ETCD)`
        : `image ${spec.image} is not simulated`;
      this.node.log.warn({ server: this.node.host.serverId, pod: spec.name, error: pod.error }, 'static pod not run');
      return;
    }
    const binary = image.binary;
    const dir = this.node.privateDir();
    if (spec.program === 'etcd') this.alignEtcdData(spec, dir);
    const prepared = prepareProcess(spec, binary, this.node.host.fs, this.node.host.address, dir);
    if (prepared.bindError) {
      pod.error = prepared.bindError;
      pod.lastExit = { code: 1, signal: null, at: new Date().toISOString(), log: [prepared.bindError] };
      this.scheduleRestart(pod);
      return;
    }
    const proc = RealProcess.start(spec.name, prepared.argv, dir, this.node.log);
    pod.process = proc;
    void proc.exited.then((exit) => {
      if (proc.stopRequested || this.pods.get(spec.name) !== pod) return;
      pod.lastExit = { code: exit.code, signal: exit.signal, at: new Date().toISOString(), log: proc.tail(30) };
      this.node.log.warn({ server: this.node.host.serverId, pod: spec.name, code: exit.code, signal: exit.signal, log: pod.lastExit.log.slice(-5) }, 'static pod exited');
      this.scheduleRestart(pod);
    });
  }

  private scheduleRestart(pod: Pod): void {
    const delay = this.node.runtime.settings.podBackoffMs * Math.min(MAX_BACKOFF_FACTOR, 2 ** pod.restarts);
    pod.retry = setTimeout(() => {
      this.chain = this.chain.then(() => {
        if (this.pods.get(pod.spec.name) !== pod || !this.node.kubeletRunning) return;
        this.pods.delete(pod.spec.name);
        const fresh = readManifests(this.node.host.fs, this.node.staticPodPath).pods.find((s) => s.name === pod.spec.name);
        if (fresh) this.startPod(fresh, pod.restarts + 1);
      });
    }, delay);
    pod.retry.unref();
  }

  private async stopPod(name: string, graceMs?: number): Promise<void> {
    const pod = this.pods.get(name);
    if (!pod) return;
    this.pods.delete(name);
    clearTimeout(pod.retry);
    const ms = await pod.process?.stop(graceMs);
    if (ms !== undefined) this.node.log.info({ server: this.node.host.serverId, pod: name, stopMs: ms }, 'static pod stopped');
    await pod.component?.stop();
  }

  /**
   * etcd's data lives in the private directory as long as the host keeps its
   * data directory: a host whose /var/lib/etcd is empty (new, or after
   * `kubeadm reset`) starts a fresh member.
   */
  private alignEtcdData(spec: StaticPodSpec, dir: string): void {
    const dataDir = flagsOf(spec.argv).get('data-dir');
    if (!dataDir?.startsWith('/')) return;
    const memfs = this.node.host.fs;
    const marker = `${dataDir}/member`;
    if (!memfs.isDir(marker)) {
      fs.rmSync(path.join(dir, 'data', dataDir), { recursive: true, force: true });
      memfs.mkdir(marker, ROOT, { parents: true, mode: 0o700 });
    }
  }

  view(): StaticPodView[] {
    return [...this.pods.values()].map((p) => ({
      name: p.spec.name,
      program: p.spec.program,
      manifest: p.spec.file,
      state: p.component ? 'running' : p.process?.running ? 'running' : p.pullError ? 'ImagePullBackOff' : p.error && !p.lastExit ? 'waiting' : 'crashloop',
      pid: p.process?.running ? p.process.pid : undefined,
      restarts: p.restarts,
      startedAt: p.startedAt,
      image: p.spec.image,
      error: p.error ?? p.component?.lastError,
      lastExit: p.lastExit,
    }));
  }
}

function hashOf(spec: StaticPodSpec): string {
  return createHash('sha256').update(spec.content).digest('hex');
}
