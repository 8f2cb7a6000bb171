/**
 * The simulator's Kubernetes runtime: the binaries the control-plane pods run
 * on, the private directory their files live in (DATA_DIR/vimsim/kube), the
 * timings tests may shorten, and one KubeNode per live host. The SSH manager
 * tells it when a server's host powers on, powers off or goes away; close()
 * stops every process. At start it reaps what a killed simulator left.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { SimHost } from '../ssh/host/host';
import { KubeControllerManager } from './controller-manager';
import { KubeNode } from './node';
import { reapStale } from './processes';
import { KubeScheduler } from './scheduler';
import type { CloudView, ComponentFactory, ImageState, KubeSettings, RuntimeParts } from './node-parts';

const RELEASED_WITH_APISERVER = new Set(['kube-controller-manager', 'kube-scheduler', 'kube-proxy']);

export class KubeRuntime implements RuntimeParts {
  private readonly nodes = new Map<string, KubeNode>();
  readonly components: Record<string, ComponentFactory> = {
    'kube-controller-manager': (node, flags) => new KubeControllerManager(node, flags),
    'kube-scheduler': (node, flags) => new KubeScheduler(node, flags),
  };

  constructor(
    readonly settings: KubeSettings,
    readonly cloud: CloudView,
    readonly log: Logger,
  ) {}

  /** Kills what a killed predecessor left running on this data directory and clears its files. */
  start(): void {
    reapStale(this.settings.dir, this.log);
    fs.mkdirSync(this.settings.dir, { recursive: true, mode: 0o700 });
  }

  /** The binary a static pod's image runs on server `serverId`, or why there is none. */
  imageState(program: string, image: string, serverId: string): ImageState {
    if (this.cloud.pullHeld?.(serverId)) return { pulling: `the registry does not serve ${image} to this machine yet (an image pull fault holds its pulls)` };
    if (RELEASED_WITH_APISERVER.has(program)) program = 'kube-apiserver'; // one release, one tag: there when its kube-apiserver is
    let bin = program === 'etcd' ? this.settings.etcdBin : undefined;
    if (program === 'kube-apiserver') {
      const byVersion = this.settings.apiserverBins ?? {};
      if (Object.keys(byVersion).length === 0) bin = this.settings.apiserverBin;
      else {
        bin = byVersion[image.slice(image.lastIndexOf(':') + 1)];
        if (!bin) return { notFound: true };
      }
    }
    if (!bin) return { notSimulated: true };
    return fs.existsSync(bin) ? { binary: bin } : { pulling: `${image} is not on this host yet: the simulator's Kubernetes toolchain is still being built (${path.basename(bin)})` };
  }

  /** The host's Kubernetes side, made on first use. */
  nodeOf(host: SimHost): KubeNode {
    let node = this.nodes.get(host.serverId);
    if (node?.host !== host) {
      node = new KubeNode(host, this, this.log);
      this.nodes.set(host.serverId, node);
    }
    return node;
  }

  hostUp(host: SimHost): void {
    this.nodeOf(host).powerOn();
  }

  async hostDown(host: SimHost): Promise<void> {
    await this.nodes.get(host.serverId)?.powerOff();
  }

  async hostGone(host: SimHost): Promise<void> {
    const node = this.nodes.get(host.serverId);
    if (node?.host !== host) return;
    this.nodes.delete(host.serverId);
    await node.destroy();
  }

  capacityOf(serverId: string): { vcpus: number; ramMb: number; diskGb: number } {
    return this.cloud.flavorOf(serverId) ?? { vcpus: 2, ramMb: 4096, diskGb: 40 };
  }

  /** Every node's kubelet and pods, for the admin API. */
  view() {
    return [...this.nodes.values()].map((n) => ({ serverId: n.host.serverId, address: n.host.address, ...n.view() }));
  }

  async close(): Promise<void> {
    const nodes = [...this.nodes.values()];
    this.nodes.clear();
    await Promise.all(nodes.map((n) => n.destroy()));
    fs.rmSync(this.settings.dir, { recursive: true, force: true });
  }
}

export function kubeDir(dataDir: string): string {
  return path.join(dataDir, 'vimsim', 'kube');
}
