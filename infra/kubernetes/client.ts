/**
 * The product's client for a cluster's Kubernetes API: what the cluster
 * engine does there (docs/cluster-engine.md §2): health, nodes (labels,
 * cordon, delete, Ready), pods and evictions for drains, bootstrap-token
 * Secrets, the VIM's service account, its RBAC and its tokens, ConfigMaps.
 * Creates are idempotent (an object that exists already is "exists"),
 * deletes too (a missing object is "not found", not an error).
 */
import { z } from 'zod';
import { type DrainOptions, type DrainResult, drainNode, type EvictionResult } from './drain';
import { type KubeEndpoint, KubeHttp, type KubeResponse } from './http';
import {
  configMapSchema, type KubeConfigMap, type KubeNode, type KubePod, listSchema, nodeSchema, podSchema, selfSubjectReviewSchema, tokenRequestSchema,
} from './schemas';

export type CreateResult = 'created' | 'exists';
export type PatchType = 'strategic' | 'merge';

const PATCH_CONTENT_TYPE: Record<PatchType, string> = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
};
/** Items per list page (default), and pages at most: a list is read in bounded pieces. */
export const LIST_PAGE_SIZE = 250;
const MAX_PAGES = 400;

/** An object to create: at least its name. */
export interface Manifest {
  metadata: { name: string; [k: string]: unknown };
  [k: string]: unknown;
}

export type RbacSubject = { kind: 'ServiceAccount'; name: string; namespace: string } | { kind: 'User' | 'Group'; name: string };

const seg = encodeURIComponent;

export class KubeClient {
  private readonly http: KubeHttp;
  private readonly pageSize: number;

  constructor(endpoint: KubeEndpoint, o: { listPageSize?: number } = {}) {
    this.http = new KubeHttp(endpoint);
    this.pageSize = o.listPageSize ?? LIST_PAGE_SIZE;
  }

  close(): void {
    this.http.close();
  }

  private parse<T extends z.ZodType>(schema: T, method: string, path: string, r: KubeResponse): z.infer<T> {
    const p = schema.safeParse(r.body);
    if (!p.success) throw new Error(`${method} ${path}: unexpected answer (${z.prettifyError(p.error).slice(0, 200)})`);
    return p.data;
  }

  /** GET; undefined on 404. */
  private async get<T extends z.ZodType>(path: string, schema: T): Promise<z.infer<T> | undefined> {
    const r = await this.http.request('GET', path);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw this.http.error('GET', path, r);
    return this.parse(schema, 'GET', path, r);
  }

  private async list<T extends z.ZodType>(path: string, item: T, query: Record<string, string | undefined> = {}): Promise<z.infer<T>[]> {
    const page = listSchema(item);
    const out: z.infer<T>[] = [];
    let next: string | undefined;
    for (let i = 0; i < MAX_PAGES; i++) {
      const r = await this.http.request('GET', path, { query: { ...query, limit: this.pageSize, continue: next } });
      if (r.status !== 200) throw this.http.error('GET', path, r);
      const p = this.parse(page, 'GET', path, r);
      out.push(...p.items);
      next = p.metadata?.continue || undefined;
      if (!next) return out;
    }
    throw new Error(`GET ${path}: more than ${MAX_PAGES * this.pageSize} items`);
  }

  /** POST; 409 AlreadyExists is "exists". */
  private async create(path: string, manifest: unknown): Promise<CreateResult> {
    const r = await this.http.request('POST', path, { body: manifest });
    if (r.status === 200 || r.status === 201 || r.status === 202) return 'created';
    if (r.status === 409) return 'exists';
    throw this.http.error('POST', path, r);
  }

  // ---- health and identity ---------------------------------------------------

  /** GET /healthz: the status and the body ("ok" when healthy); only a failure to connect throws. */
  async healthz(): Promise<{ status: number; body: string }> {
    const r = await this.http.request('GET', '/healthz', { timeoutMs: 10_000 });
    return { status: r.status, body: r.text.slice(0, 2000) };
  }

  /** Who the API server takes this client for (SelfSubjectReview). */
  async whoAmI(): Promise<{ username: string; groups: string[] }> {
    const path = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
    const r = await this.http.request('POST', path, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    if (r.status !== 201 && r.status !== 200) throw this.http.error('POST', path, r);
    const u = this.parse(selfSubjectReviewSchema, 'POST', path, r).status.userInfo;
    return { username: u.username ?? '', groups: u.groups ?? [] };
  }

  // ---- nodes -------------------------------------------------------------------

  listNodes(labelSelector?: string): Promise<KubeNode[]> {
    return this.list('/api/v1/nodes', nodeSchema, { labelSelector });
  }

  getNode(name: string): Promise<KubeNode | undefined> {
    return this.get(`/api/v1/nodes/${seg(name)}`, nodeSchema);
  }

  /** Patches a node (strategic merge by default; `merge` for RFC 7386), returns it as patched. */
  async patchNode(name: string, patch: object, type: PatchType = 'strategic'): Promise<KubeNode> {
    const path = `/api/v1/nodes/${seg(name)}`;
    const r = await this.http.request('PATCH', path, { body: patch, contentType: PATCH_CONTENT_TYPE[type] });
    if (r.status !== 200) throw this.http.error('PATCH', path, r);
    return this.parse(nodeSchema, 'PATCH', path, r);
  }

  /** Sets labels (a null value removes that label). */
  labelNode(name: string, labels: Record<string, string | null>): Promise<KubeNode> {
    return this.patchNode(name, { metadata: { labels } }, 'merge');
  }

  /** spec.unschedulable = true (kubectl cordon). */
  cordonNode(name: string): Promise<KubeNode> {
    return this.patchNode(name, { spec: { unschedulable: true } });
  }

  uncordonNode(name: string): Promise<KubeNode> {
    return this.patchNode(name, { spec: { unschedulable: null } });
  }

  /** Deletes the Node object: "deleted", or "not found" when it was already gone. */
  async deleteNode(name: string): Promise<'deleted' | 'not found'> {
    const path = `/api/v1/nodes/${seg(name)}`;
    const r = await this.http.request('DELETE', path);
    if (r.status === 200 || r.status === 202) return 'deleted';
    if (r.status === 404) return 'not found';
    throw this.http.error('DELETE', path, r);
  }

  // ---- pods and drains -----------------------------------------------------------

  /** Pods in every namespace (or one), optionally only those bound to `nodeName`. */
  listPods(o: { nodeName?: string; namespace?: string; labelSelector?: string } = {}): Promise<KubePod[]> {
    const path = o.namespace ? `/api/v1/namespaces/${seg(o.namespace)}/pods` : '/api/v1/pods';
    return this.list(path, podSchema, { fieldSelector: o.nodeName ? `spec.nodeName=${o.nodeName}` : undefined, labelSelector: o.labelSelector });
  }

  getPod(namespace: string, name: string): Promise<KubePod | undefined> {
    return this.get(`/api/v1/namespaces/${seg(namespace)}/pods/${seg(name)}`, podSchema);
  }

  /**
   * Evicts a pod (policy/v1 Eviction, so PodDisruptionBudgets hold):
   * "evicted", "gone" (404: nothing left to do) or "retry-later" (429: a
   * budget does not allow it now).
   */
  async evictPod(namespace: string, name: string): Promise<EvictionResult> {
    const path = `/api/v1/namespaces/${seg(namespace)}/pods/${seg(name)}/eviction`;
    const r = await this.http.request('POST', path, {
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
    });
    if (r.status === 200 || r.status === 201) return 'evicted';
    if (r.status === 404) return 'gone';
    if (r.status === 429) return 'retry-later';
    throw this.http.error('POST', path, r);
  }

  /** Cordons the node and evicts its pods but mirror and DaemonSet pods (one pass; see drain.ts). */
  drainNode(name: string, o?: DrainOptions): Promise<DrainResult> {
    return drainNode(this, name, o);
  }

  // ---- secrets, service accounts, RBAC, tokens, config maps ----------------------

  /** Creates a Secret (e.g. a bootstrap token's); "exists" when one of that name is there. */
  createSecret(namespace: string, manifest: Manifest): Promise<CreateResult> {
    return this.create(`/api/v1/namespaces/${seg(namespace)}/secrets`, { apiVersion: 'v1', kind: 'Secret', ...manifest });
  }

  createServiceAccount(namespace: string, name: string): Promise<CreateResult> {
    return this.create(`/api/v1/namespaces/${seg(namespace)}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
  }

  /** Binds a ClusterRole to subjects. An existing binding of that name is left as it is (its roleRef cannot change). */
  createClusterRoleBinding(b: { name: string; clusterRole: string; subjects: RbacSubject[] }): Promise<CreateResult> {
    return this.create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: b.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: b.clusterRole },
      subjects: b.subjects.map((s) => (s.kind === 'ServiceAccount' ? s : { ...s, apiGroup: 'rbac.authorization.k8s.io' })),
    });
  }

  /** A token for a service account (TokenRequest API); the API server may shorten the lifetime. */
  async requestToken(namespace: string, serviceAccount: string, expirationSeconds: number, audiences?: string[]): Promise<{ token: string; expirationTimestamp: string }> {
    const path = `/api/v1/namespaces/${seg(namespace)}/serviceaccounts/${seg(serviceAccount)}/token`;
    const r = await this.http.request('POST', path, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds, ...(audiences ? { audiences } : {}) } },
    });
    if (r.status !== 201 && r.status !== 200) throw this.http.error('POST', path, r);
    return this.parse(tokenRequestSchema, 'POST', path, r).status;
  }

  getConfigMap(namespace: string, name: string): Promise<KubeConfigMap | undefined> {
    return this.get(`/api/v1/namespaces/${seg(namespace)}/configmaps/${seg(name)}`, configMapSchema);
  }
}
