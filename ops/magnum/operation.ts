/**
 * What a Magnum operation module declares (ops/registry.ts lists them): its
 * workflow type and Web UI summary, and where the API takes it: the route
 * below /v1, its request body and the checks it must pass before anything
 * is written (api/magnum/routes/operations.ts serves every declared route).
 */
import type { z } from 'zod';
import type { Config } from '../../common/config';
import type { Store } from '../../store';
import type { BeginOperation, MagnumClusterRow, NodegroupRow } from '../../store/repos/magnum/clusters';
import type { TemplateRow } from '../../store/repos/magnum/templates';
import type { CloudLookups } from '../../infra/openstack/cloud-lookups';

export interface MagnumSummaryInput {
  clusterId: string;
  clusterName: string;
  /** The operation's parameters as recorded (no secrets: counts, names, ids). */
  params: Record<string, unknown>;
}

/** A request body as WSME checks Magnum's types: a JSON object against its schema, named `resource` in the 400s. */
export interface MagnumBody<S extends z.ZodObject = z.ZodObject> {
  schema: S;
  /** WSME's argument name in "Unknown attribute for argument <resource>". */
  resource: string;
  readOnly?: readonly string[];
}

/** Where the API takes an operation on an existing cluster. */
export interface MagnumRoute {
  method: 'post' | 'patch' | 'delete';
  /** Below /v1: `:cluster` is the cluster (uuid or name), `:nodegroup` one of its nodegroups (id, uuid or name). */
  path: string;
  /** The policy target whose write rule the caller must pass. */
  policy: 'clusters' | 'nodegroups' | 'certificates';
  /** The least microversion, checked before the cluster is looked up: 406 naming `what` below it, or 400 with the text given for that version. */
  since?: { minor: number; what: string; badRequestAt?: Record<number, string> };
  /** The body: a JSON object (checked against its schema) or a JSON patch (a list of {op, path, value}). */
  body?: MagnumBody | 'json-patch';
  /** `?rollback=True` is read (a failure takes the finished nodes back). */
  rollback?: boolean;
  /** 202 with {uuid}, 202 with the nodegroup the plan shows, or 204. */
  answer: 'uuid' | 'nodegroup' | 'none';
  /** A running operation of the cluster is stopped once this one is recorded (its late writes are fenced off anyway). */
  supersedes?: boolean;
  /** One line for the OpenAPI document. */
  description: string;
}

/** What a precheck gets: the cluster the path names as the caller sees it, the checked body, and lookups. */
export interface MagnumPrecheckInput<B = unknown> {
  db: Store;
  cfg: Config;
  caller: { projectId: string; isAdmin: boolean };
  cluster: MagnumClusterRow;
  /** The nodegroup `:nodegroup` names, when the path has one. */
  nodegroup?: NodegroupRow;
  body: B;
  /** The request's microversion, 1.<minor>. */
  minor: number;
  rollback: boolean;
  /** A nodegroup of the cluster by id, uuid or name (404). */
  findNodegroup(ident: string): Promise<NodegroupRow>;
  /** A cluster template the caller sees, by uuid or name (404). */
  findTemplate(ident: string): Promise<TemplateRow>;
  /** The VIM's images and flavors as the caller sees them. */
  cloud(vimId: string): Promise<CloudLookups>;
}

/** What the API records, in the one transaction that checks the fresh rows (store/repos/magnum/clusters beginOperation). */
export type MagnumStartPlan = Omit<BeginOperation, 'operationId' | 'operation'> & {
  /** The nodegroup a 'nodegroup' answer shows, by uuid. */
  shows?: string;
};

export interface MagnumOperationModule<B = any> {
  /** Its name, as the store records it: its key in ops/registry.ts. */
  operation: string;
  /** The Temporal workflow type: one per operation, so the Web UI lists and filters by it. */
  workflowType: string;
  /** One line for the Web UI, e.g. "Resize default-worker of cluster k8s (…) to 3 nodes". */
  summary(s: MagnumSummaryInput): string;
  /** Where the API takes it; none for the operations with a route of their own (cluster create, and the PATCH of a cluster's node_count). */
  route?: MagnumRoute;
  /** The checks before anything is written (4xx naming the field or the state), and what the start records. */
  precheck?(input: MagnumPrecheckInput<B>): Promise<MagnumStartPlan>;
}


export const clusterLabel = (s: MagnumSummaryInput) => `cluster ${s.clusterName} (${s.clusterId})`;
