/**
 * The kubelet's pod work, as kwok does it for fake nodes (no container runs):
 * a mirror pod in the API for each of its running static pods (what drains
 * skip), pods bound to its node reported Running, and pods being deleted
 * confirmed (gracePeriodSeconds 0) so that an eviction or a drain completes.
 * A stopped kubelet does none of it: its pods then stay as they are, or
 * Terminating, as on a real node that is down.
 */
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import { isNotFound, metaTime, type KubeClient } from './client';
import { readManifests } from './manifest';
import type { NodeParts } from './node-parts';

interface PodObj {
  metadata: { name: string; namespace: string; uid: string; deletionTimestamp?: string; annotations?: Record<string, string> };
  spec: { containers: { name: string; image?: string }[] };
  status?: { phase?: string };
}

const MIRROR = 'kubernetes.io/config.mirror';

export class PodSync {
  constructor(
    private readonly node: NodeParts,
    private readonly nodeName: string,
  ) {}

  async sync(client: KubeClient, nodeUid: string | undefined): Promise<void> {
    const selector = encodeURIComponent(`spec.nodeName=${this.nodeName}`);
    const pods = (await client.get<{ items: PodObj[] }>(`/api/v1/pods?fieldSelector=${selector}`)).items;
    await this.mirrors(client, pods, nodeUid);
    const unpulled = new Map(this.node.pods.view().filter((p) => p.state === 'ImagePullBackOff').map((p) => [`${p.name}-${this.nodeName}`, p]));
    for (const pod of pods) {
      const path = `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`;
      const mirror = pod.metadata.annotations?.[MIRROR] !== undefined;
      const pull = mirror ? unpulled.get(pod.metadata.name) : undefined;
      if (pull) {
        if (pod.status?.phase !== 'Pending') await client.patch(`${path}/status`, imagePullBackOff(pod, this.node.host.address, pull.image, pull.error ?? ''));
        continue;
      }
      if (pod.metadata.deletionTimestamp && !mirror) {
        // the containers are stopped: confirm the deletion
        try {
          await client.request('DELETE', path, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        continue;
      }
      if (pod.status?.phase === 'Running' || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
      const now = metaTime();
      await client.patch(`${path}/status`, {
        status: {
          phase: 'Running',
          hostIP: this.node.host.address,
          podIP: this.node.host.address,
          startTime: now,
          conditions: ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'PodScheduled', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now, lastProbeTime: null })),
          containerStatuses: pod.spec.containers.map((c) => ({
            name: c.name, image: c.image ?? '', imageID: '', ready: true, restartCount: 0, started: true,
            containerID: `containerd://${createHash('sha256').update(`${pod.metadata.uid}/${c.name}`).digest('hex')}`,
            state: { running: { startedAt: now } },
          })),
        },
      });
    }
  }

  /** One mirror pod per running static pod (`<name>-<node>` in the manifest's namespace); stale ones deleted. */
  private async mirrors(client: KubeClient, pods: PodObj[], nodeUid: string | undefined): Promise<void> {
    // a pod whose image cannot be pulled has its mirror pod too (its status tells why)
    const running = new Set(this.node.pods.view().filter((p) => p.state === 'running' || p.state === 'ImagePullBackOff').map((p) => p.name));
    const manifests = readManifests(this.node.host.fs, this.node.staticPodPath).pods.filter((m) => running.has(m.name));
    const wanted = new Map<string, { ns: string; body: Record<string, unknown> }>();
    for (const m of manifests) {
      const doc = YAML.parse(m.content) as { metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec: Record<string, unknown> };
      const ns = doc.metadata.namespace ?? 'default';
      const hash = createHash('md5').update(m.content).digest('hex');
      const name = `${doc.metadata.name}-${this.nodeName}`;
      const { priority: _priority, ...spec } = doc.spec;
      wanted.set(`${ns}/${name}`, {
        ns,
        body: {
          apiVersion: 'v1', kind: 'Pod',
          metadata: {
            name, namespace: ns, labels: doc.metadata.labels,
            annotations: { ...doc.metadata.annotations, 'kubernetes.io/config.hash': hash, [MIRROR]: hash, 'kubernetes.io/config.seen': new Date().toISOString(), 'kubernetes.io/config.source': 'file' },
            ...(nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: nodeUid, controller: true }] } : {}),
          },
          spec: { ...spec, nodeName: this.nodeName },
        },
      });
    }
    const existing = new Map(pods.filter((p) => p.metadata.annotations?.[MIRROR] !== undefined).map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p]));
    for (const [key, pod] of existing) {
      const want = wanted.get(key);
      const hash = (want?.body.metadata as { annotations: Record<string, string> } | undefined)?.annotations[MIRROR];
      if (want && pod.metadata.annotations?.[MIRROR] === hash && !pod.metadata.deletionTimestamp) continue;
      try {
        await client.request('DELETE', `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      existing.delete(key);
    }
    for (const [key, { ns, body }] of wanted) {
      if (!existing.has(key)) await client.apply(`/api/v1/namespaces/${ns}/pods`, body as never, 'retain');
    }
  }
}

/** The status the kubelet reports for a pod whose image it cannot pull. */
function imagePullBackOff(pod: PodObj, hostIP: string, image: string, message: string) {
  const now = metaTime();
  return {
    status: {
      phase: 'Pending',
      hostIP,
      podIP: hostIP,
      startTime: now,
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: now, lastProbeTime: null },
        { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${pod.spec.containers.map((c) => c.name).join(' ')}]`, lastTransitionTime: now, lastProbeTime: null },
      ],
      containerStatuses: pod.spec.containers.map((c) => ({
        name: c.name, image, imageID: '', ready: false, restartCount: 0, started: false,
        state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}": ErrImagePull: ${message.replace(/^Failed to pull image "[^"]*": /, '')}` } },
      })),
    },
  };
}
