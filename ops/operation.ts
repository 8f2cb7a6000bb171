/** What an operation module declares (ops/registry.ts lists them). */
import type { z } from 'zod';
import type { Config } from '../common/config';
import type { Q, Store } from '../store';
import type { InstanceRow, VimRow } from '../store/repos/rows';
import type { Scope } from '../store/repos/scope';
import type { SecretBox } from '../common/secrets';

/** What a summary may say: the instance and the request as recorded (secrets already masked). */
export interface SummaryInput {
  vnfInstanceId: string;
  vnfInstanceName?: string | null;
  vimId?: string | null;
  params: Record<string, unknown>;
}

export type ApiVersion = 'v1' | 'v2';

/**
 * Where an operation is requested on a VNF instance (SOL003 5.4): a task
 * resource, `POST .../vnf_instances/{id}/<path>` (instantiate, scale, ...),
 * or the instance resource itself, `PATCH .../vnf_instances/{id}` (path '':
 * ModifyVnfInfo). Either way the answer is 202 with the op occ's Location.
 */
export interface OperationTask {
  method: 'POST' | 'PATCH';
  path: string;
  versions: readonly ApiVersion[];
}

/** The route of a task below /vnflcm/<version>, with `:id` for the instance. */
export function taskRoute(t: Pick<OperationTask, 'path'>): string {
  return t.path ? `/vnf_instances/:id/${t.path}` : '/vnf_instances/:id';
}

export interface OperationModule<S extends z.ZodType = z.ZodType> {
  /** The Temporal workflow type: one per operation, so the Web UI lists and filters by it. */
  workflowType: string;
  /** The request body: validated by the API, masks the op occ's secrets, documented in OpenAPI under requestName. */
  request: S;
  requestName: string;
  /** How the API takes the request: method and path below the instance, on these API versions. */
  task: OperationTask;
  /** One line for the Web UI, e.g. "Instantiate vnf-… flavour simple, level 2 on VIM …". */
  summary(s: SummaryInput): string;
  /**
   * The checks the request must pass before anything is written (4xx naming
   * the field: common/http-error.ts), and what the start writes with the op occ.
   */
  precheck(input: PrecheckInput<z.infer<S>>): Promise<StartPlan>;
}

/** How a summary names the instance: its name when it has one, with its id. */
export function vnfName(s: SummaryInput): string {
  return s.vnfInstanceName ? `${s.vnfInstanceName} (${s.vnfInstanceId})` : `VNF ${s.vnfInstanceId}`;
}

/** What an operation's precheck gets: the caller's view of the store and the instance the request names. */
export interface PrecheckInput<R> {
  db: Store;
  box: SecretBox;
  cfg: Config;
  /** The caller's project (admins: any). */
  scope: Scope;
  instance: InstanceRow;
  request: R;
  /** The API version the request came on (a payload may take fields on v2 only). */
  version: ApiVersion;
  /**
   * The VIM row the instance's project acts with on a VIM it may use: itself, or on a shared VIM the
   * project's trust-scoped access (made with the caller's token when missing: api/vim-access.ts).
   */
  actingVim(vim: VimRow): Promise<string>;
}

/**
 * What a precheck hands on to the op's start (api/operations.ts), all run in
 * the one transaction that records the op occ: nothing is written when any
 * of them refuses.
 */
export interface StartPlan {
  /** Checked against the fresh instance row. */
  precondition(inst: InstanceRow): void;
  /** Instance fields the op sets at once (the VIM chosen at instantiate). */
  alsoWrite?(inst: InstanceRow): Partial<InstanceRow>;
  /** Other rows the op needs (an inline VIM, a package held IN_USE). */
  write?(q: Q): Promise<void>;
}
