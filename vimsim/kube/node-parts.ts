/**
 * What the parts of a simulated Kubernetes node (its static pods, kubelet
 * agent, pod sync, and the simulated controller-manager and scheduler) see of
 * their node and of the runtime: node.ts and runtime.ts implement these, the
 * parts depend on them only, so no part imports the node that owns it.
 */
import type { Logger } from 'pino';
import type { SimHost } from '../ssh/host/host';

export const KUBELET_CONFIG = '/var/lib/kubelet/config.yaml';
export const KUBELET_FLAGS_ENV = '/var/lib/kubelet/kubeadm-flags.env';
export const KUBELET_KUBECONFIG = '/etc/kubernetes/kubelet.conf';
export const BOOTSTRAP_KUBECONFIG = '/etc/kubernetes/bootstrap-kubelet.conf';

export interface KubeletSettings {
  staticPodPath: string;
  failSwapOn: boolean;
  nodeLeaseDurationSeconds: number;
  /** From kubeadm-flags.env (KUBELET_KUBEADM_ARGS). */
  flags: Map<string, string>;
}

export interface KubeSettings {
  /** The built kube-apiserver (runtime/kube); without it apiserver pods cannot start. */
  apiserverBin?: string;
  /**
   * kube-apiservers by version ("v1.36.3"): a pod runs the one its image tag
   * names, and a tag none has fails as an image pull does. Without them every
   * tag runs `apiserverBin` (one version, as before upgrades were simulated).
   */
  apiserverBins?: Record<string, string>;
  /** Debian's etcd. */
  etcdBin?: string;
  /** Where the control planes' real files go: DATA_DIR/vimsim/kube. */
  dir: string;
  /** Overrides every kubelet's Lease renew interval (else nodeLeaseDurationSeconds / 4: 10 s). */
  leaseRenewMs?: number;
  /** First restart delay of a crashed static pod; doubles per crash, up to 16x. */
  podBackoffMs: number;
}

/** What the runtime needs to know about the cloud (the cloud's node lifecycle controller asks it). */
export interface CloudView {
  /** `up`, `stopped` (SHUTOFF and the like) or `gone` (no such server). */
  serverState(serverId: string): 'up' | 'stopped' | 'gone';
  /** The server's flavor, for the Node's capacity. */
  flavorOf(serverId: string): { vcpus: number; ramMb: number; diskGb: number } | undefined;
  /** An image pull fault holds this server's pulls (the admin API's faults, matched on the server's name). */
  pullHeld?(serverId: string): boolean;
}

/** Where a static pod's program comes from: a binary to run, or why there is none. */
export type ImageState =
  | { binary: string }
  /** Not pullable yet: a pull fault holds it, or its binary is still being built (the toolchain builds after the simulator started). */
  | { pulling: string }
  /** No binary was built for this tag: the image does not exist (ErrImagePull NotFound). */
  | { notFound: true }
  /** The simulator was given no binary for this program at all. */
  | { notSimulated: true };

/** A simulated control-plane component (controller-manager, scheduler). */
export interface SimComponent {
  start(): void;
  stop(): Promise<void>;
  /** Why it is not working (e.g. its kubeconfig is refused), for the views. */
  readonly lastError?: string;
}

export type ComponentFactory = (node: NodeParts, flags: Map<string, string>) => SimComponent;

/** One static pod as the kubelet reports it. */
export interface StaticPodView {
  name: string;
  program: string;
  manifest: string;
  state: 'running' | 'ImagePullBackOff' | 'waiting' | 'crashloop';
  pid?: number;
  restarts: number;
  startedAt?: string;
  image: string;
  error?: string;
  lastExit?: { code: number | null; signal: string | null; at: string; log: string[] };
}

/** The runtime as a node's parts use it. */
export interface RuntimeParts {
  readonly settings: KubeSettings;
  readonly cloud: CloudView;
  readonly components: Record<string, ComponentFactory>;
  /** The binary a static pod's image runs on server `serverId`, or why there is none. */
  imageState(program: string, image: string, serverId: string): ImageState;
  capacityOf(serverId: string): { vcpus: number; ramMb: number; diskGb: number };
}

/** A node as its parts use it. */
export interface NodeParts {
  readonly host: SimHost;
  readonly runtime: RuntimeParts;
  readonly log: Logger;
  readonly staticPodPath: string;
  readonly kubeletRunning: boolean;
  readonly pods: { view(): StaticPodView[] };
  /** DATA_DIR/vimsim/kube/<server>: the real files of this host's control plane (0700). */
  privateDir(): string;
  settings(): KubeletSettings & { configError?: string };
}
