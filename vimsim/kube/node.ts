/**
 * The Kubernetes side of one simulated host: whether its kubelet runs (the
 * `kubelet` unit is active and can start: a config file, no swap unless
 * failSwapOn is off, containerd answering), its static pods, and its API agent
 * (TLS bootstrap, Node registration, Lease renewals). systemctl, kubeadm and
 * the server's power changes drive it.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { Logger } from 'pino';
import type { SimHost } from '../ssh/host/host';
import { KubeletAgent } from './kubelet';
import { MANIFEST_DIR } from './manifest';
import { KUBELET_CONFIG, KUBELET_FLAGS_ENV, type KubeletSettings, type NodeParts, type RuntimeParts } from './node-parts';
import { StaticPods } from './static-pods';
import { swapOn } from '../ssh/host/kernel';

const ROOT = { name: 'root', uid: 0, home: '/root' };

/** A host carries its KubeNode (ssh/host/host.ts knows nothing of it: the host is below this module). */
declare module '../ssh/host/host' {
  interface SimHost {
    /** The host's Kubernetes side (kubelet, static pods), set at boot when the simulator runs Kubernetes. */
    kube?: KubeNode;
  }
}

export class KubeNode implements NodeParts {
  readonly pods: StaticPods;
  private agent?: KubeletAgent;
  private powered = true;
  private watching?: NodeJS.Timeout;
  /** The kubelet's files as last read (dropped when one of them changes). */
  private cached?: KubeletSettings & { configError?: string };
  /** Why the kubelet last failed to start (its journal's last words), if it did. */
  lastKubeletError?: string;

  constructor(
    readonly host: SimHost,
    readonly runtime: RuntimeParts,
    readonly log: Logger,
  ) {
    this.pods = new StaticPods(this, runtime.components);
    host.fs.onChange((p) => {
      // a change of the path or of a directory above it (rm -r, mv of a directory)
      const touches = (f: string) => f === p || f.startsWith(`${p}/`);
      if (touches(KUBELET_CONFIG) || touches(KUBELET_FLAGS_ENV)) this.cached = undefined;
      if (p.startsWith(`${this.staticPodPath}/`) || touches(this.staticPodPath)) this.soon();
    });
  }

  /** DATA_DIR/vimsim/kube/<server>: the real files of this host's control plane (0700). */
  privateDir(): string {
    const dir = path.join(this.runtime.settings.dir, this.host.serverId);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  settings(): KubeletSettings & { configError?: string } {
    this.cached ??= this.readSettings();
    return this.cached;
  }

  private readSettings(): KubeletSettings & { configError?: string } {
    const memfs = this.host.fs;
    let cfg: Record<string, unknown> = {};
    let configError: string | undefined;
    try {
      if (memfs.isFile(KUBELET_CONFIG)) cfg = (YAML.parse(memfs.readFile(KUBELET_CONFIG, ROOT).toString('utf8')) ?? {}) as Record<string, unknown>;
    } catch (err) {
      configError = (err as Error).message.split('\n')[0];
    }
    const flags = new Map<string, string>();
    if (memfs.isFile(KUBELET_FLAGS_ENV)) {
      const text = memfs.readFile(KUBELET_FLAGS_ENV, ROOT).toString('utf8');
      const args = /KUBELET_KUBEADM_ARGS="([^"]*)"/.exec(text)?.[1] ?? '';
      for (const m of args.matchAll(/--([\w-]+)=(\S*)/g)) flags.set(m[1], m[2]);
    }
    return {
      staticPodPath: typeof cfg.staticPodPath === 'string' ? cfg.staticPodPath : MANIFEST_DIR,
      failSwapOn: cfg.failSwapOn !== false,
      nodeLeaseDurationSeconds: typeof cfg.nodeLeaseDurationSeconds === 'number' ? cfg.nodeLeaseDurationSeconds : 40,
      flags,
      configError,
    };
  }

  get staticPodPath(): string {
    return this.settings().staticPodPath;
  }

  /** Why the kubelet cannot run now (the error it exits with), or undefined. */
  problem(): string | undefined {
    const memfs = this.host.fs;
    if (!memfs.isFile(KUBELET_CONFIG)) {
      return `failed to load kubelet config file, path: ${KUBELET_CONFIG}, error: failed to load Kubelet config file ${KUBELET_CONFIG}, error failed to read kubelet config file "${KUBELET_CONFIG}", error: open ${KUBELET_CONFIG}: no such file or directory`;
    }
    const settings = this.settings();
    if (settings.configError) return `failed to load kubelet config file, path: ${KUBELET_CONFIG}, error: ${settings.configError}`;
    if (swapOn(this.host) && settings.failSwapOn) return 'running with swap on is not supported, please disable swap or set --fail-swap-on flag to false';
    if (!this.host.services.get('containerd')?.active) {
      return 'validate service connection: validate CRI v1 runtime API for endpoint "unix:///run/containerd/containerd.sock": rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: no such file or directory"';
    }
    return undefined;
  }

  get kubeletRunning(): boolean {
    return this.powered && Boolean(this.host.services.get('kubelet')?.active) && this.problem() === undefined;
  }

  /** After any systemctl change of kubelet or containerd, or a config written by kubeadm. */
  sync(restartAgent = false): void {
    const running = this.kubeletRunning;
    this.lastKubeletError = this.powered && this.host.services.get('kubelet')?.active ? this.problem() : undefined;
    if (!running || restartAgent) {
      this.agent?.stop();
      this.agent = undefined;
    }
    if (!running) return;
    void this.pods.reconcile();
    this.agent ??= this.startAgent();
  }

  private startAgent(): KubeletAgent | undefined {
    const agent = new KubeletAgent(this);
    agent.start();
    return agent;
  }

  /** A manifest changed: the kubelet notices at once (inotify), a little debounced. */
  private soon(): void {
    if (this.watching) return;
    this.watching = setTimeout(() => {
      this.watching = undefined;
      if (this.kubeletRunning) void this.pods.reconcile();
    }, 100);
    this.watching.unref();
  }

  get agentState() {
    return this.agent?.view();
  }

  /** The kubelet's client as the agent uses it (kubeadm join waits on it). */
  get kubelet(): KubeletAgent | undefined {
    return this.agent;
  }

  /** Power on (boot): enabled units start, the kubelet with them. */
  powerOn(): void {
    this.powered = true;
    this.sync();
  }

  /** Power off: everything stops; the etcd data stays with the disk. */
  async powerOff(): Promise<void> {
    this.powered = false;
    this.agent?.stop();
    this.agent = undefined;
    await this.pods.stopAll(() => this.removeFiles(true));
  }

  /** The disk is gone (delete, rebuild): processes killed at once (their address may come back on a new server), every file. */
  async destroy(): Promise<void> {
    this.powered = false;
    this.agent?.stop();
    this.agent = undefined;
    await this.pods.stopAll(() => this.removeFiles(false), 0);
  }

  /** kubeadm reset: the kubelet stops and every container is removed. */
  async resetContainers(): Promise<void> {
    this.agent?.stop();
    this.agent = undefined;
    await this.pods.stopAll(() => this.removeFiles(true));
  }

  private removeFiles(keepData: boolean): void {
    const dir = path.join(this.runtime.settings.dir, this.host.serverId);
    if (!fs.existsSync(dir)) return;
    for (const name of fs.readdirSync(dir)) if (!(keepData && name === 'data')) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    if (!keepData || fs.readdirSync(dir).length === 0) fs.rmSync(dir, { recursive: true, force: true });
  }

  view() {
    return {
      kubelet: {
        service: this.host.services.get('kubelet') ? (this.kubeletRunning ? 'running' : this.host.services.get('kubelet')?.active ? 'crashloop' : 'stopped') : 'not installed',
        error: this.lastKubeletError,
        agent: this.agentState,
      },
      pods: this.pods.view(),
      manifestErrors: this.pods.manifestErrors,
    };
  }
}
