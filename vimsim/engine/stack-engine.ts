/**
 * Stack operations as the Heat API sees them: validate, plan (synchronously,
 * in a state transaction), then let the operation run for delayMs before it
 * completes. Timers are in-process; the pending operation is persisted on the
 * top-level stack so a restarted simulator re-arms it.
 */
import type { Logger } from 'pino';
import YAML from 'yaml';
import { HeatError, heatErrors } from '../heat/errors';
import { TemplateError } from '../hot/errors';
import { Planner } from '../hot/planner';
import { parseTemplate, isPlainObject } from '../hot/template';
import type { HotTemplate, StackAction, StackEnvironment, StackRecord } from '../state/model';
import { findLiveStackByName, findResource, isDeleted } from '../state/stacks';
import { reasons, setResourceStatus } from '../state/status';
import type { StateStore } from '../state/store';
import { heatTime } from '../util/time';
import { finishOperation, type Outcome } from './completion';
import { DEFAULT_FAULT_REASON, type FaultRegistry } from './faults';

export interface StackCreateRequest {
  stack_name: string;
  template: unknown;
  files?: Record<string, unknown>;
  parameters?: Record<string, unknown>;
  environment?: unknown;
  timeout_mins?: number;
  disable_rollback?: boolean;
}

export interface StackUpdateRequest {
  template?: unknown;
  files?: Record<string, unknown>;
  parameters?: Record<string, unknown>;
  clear_parameters?: string[];
  environment?: unknown;
  timeout_mins?: number;
  disable_rollback?: boolean;
}

export interface EngineSettings {
  delayMs: number;
  sshCidr: string;
}

/** How soon the end of an operation is tried again when the state could not be saved. */
const FINISH_RETRY_MS = 1000;
const STACK_NAME = /^[a-zA-Z][a-zA-Z0-9_.-]{0,254}$/;

export class StackEngine {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly store: StateStore,
    private readonly faults: FaultRegistry,
    readonly settings: EngineSettings,
    private readonly log: Logger,
  ) {}

  create(projectId: string, req: StackCreateRequest): StackRecord {
    if (!STACK_NAME.test(req.stack_name)) {
      throw heatErrors.badRequest(
        `Invalid stack name ${req.stack_name} must contain only alphanumeric or "_-." characters, must start with alpha and must be 255 characters or less.`,
        'StackValidationFailed',
      );
    }
    if (findLiveStackByName(this.store.data, projectId, req.stack_name)) throw heatErrors.stackExists(req.stack_name);
    const template = asHeatError(() => parseTemplate(req.template));
    const environment = asHeatError(() => parseEnvironment(req.environment));
    const stack = this.mutate(() => {
      const planner = this.planner(environment);
      const created = planner.createStack({
        name: req.stack_name,
        projectId,
        template,
        files: normaliseFiles(req.files),
        userParams: req.parameters ?? {},
        timeoutMins: req.timeout_mins,
        disableRollback: req.disable_rollback ?? true,
      });
      this.begin(created, 'CREATE');
      return created;
    });
    this.arm(stack);
    return stack;
  }

  /** POST /validate: plans the template against a throw-away copy of the state. */
  validate(projectId: string, req: Omit<StackCreateRequest, 'stack_name'>): Record<string, unknown> {
    const template = asHeatError(() => parseTemplate(req.template));
    const environment = asHeatError(() => parseEnvironment(req.environment));
    const scratch = { state: this.store.scratchCopy(), now: heatTime(), sshCidr: this.settings.sshCidr, environment };
    asHeatError(() =>
      new Planner(scratch).createStack({
        name: 'validate',
        projectId,
        template,
        files: normaliseFiles(req.files),
        userParams: req.parameters ?? {},
        disableRollback: true,
      }),
    );
    const params = (template.parameters ?? {}) as Record<string, Record<string, unknown>>;
    return {
      Description: typeof template.description === 'string' ? template.description : 'No description',
      Parameters: Object.fromEntries(
        Object.entries(params).map(([name, def]) => [
          name,
          { Type: def?.type, Default: def?.default, Description: def?.description ?? '', Label: def?.label ?? name, NoEcho: 'false' },
        ]),
      ),
    };
  }

  /** PATCH (existing=true: merge into what the stack has) or PUT (replace). */
  update(stack: StackRecord, req: StackUpdateRequest, mode: 'patch' | 'put'): void {
    this.assertMutable(stack);
    const patch = mode === 'patch';
    if (!patch && req.template === undefined) throw heatErrors.badRequest('No template specified', 'HTTPBadRequest');
    const template: HotTemplate = req.template === undefined ? stack.template : asHeatError(() => parseTemplate(req.template));
    const envChange = asHeatError(() => parseEnvironment(req.environment));
    const environment: StackEnvironment = patch
      ? {
          parameters: { ...stack.environment.parameters, ...envChange.parameters },
          parameter_defaults: { ...stack.environment.parameter_defaults, ...envChange.parameter_defaults },
          resource_registry: { ...stack.environment.resource_registry, ...envChange.resource_registry },
        }
      : envChange;
    const files = patch ? { ...stack.files, ...normaliseFiles(req.files) } : normaliseFiles(req.files);
    const userParams = patch ? { ...stack.userParams, ...req.parameters } : { ...req.parameters };
    for (const name of req.clear_parameters ?? []) delete userParams[name];

    this.mutate(() => {
      stack.environment = environment;
      if (req.timeout_mins !== undefined) stack.timeoutMins = req.timeout_mins;
      if (req.disable_rollback !== undefined) stack.disableRollback = req.disable_rollback;
      this.planner(environment).updateStack(stack, { template, files, userParams });
      this.begin(stack, 'UPDATE');
    });
    this.arm(stack);
  }

  /** Deleting is allowed while another operation runs: that operation is abandoned. */
  delete(stack: StackRecord): void {
    if (stack.parentId) throw heatErrors.badRequest('Deleting a nested stack directly is not supported; update its parent.');
    if (isDeleted(stack)) throw heatErrors.stackNotFound(stack.name);
    if (stack.action === 'DELETE' && stack.status === 'IN_PROGRESS') throw heatErrors.actionInProgress(stack.name, 'DELETE');
    this.clearTimer(stack.id);
    this.mutate(() => {
      stack.pending = undefined;
      this.planner(stack.environment).deleteStack(stack);
      this.begin(stack, 'DELETE');
    });
    this.arm(stack);
  }

  /** cancel_update / cancel_without_rollback: the running create/update ends *_FAILED. */
  cancel(stack: StackRecord): void {
    if (stack.parentId) throw heatErrors.badRequest('Cancelling an operation of a nested stack is not supported.');
    if (stack.status !== 'IN_PROGRESS' || stack.action === 'DELETE' || !stack.pending) {
      throw heatErrors.badRequest(`Cancelling update when stack is ${stack.action}_${stack.status} is not supported.`, 'NotSupported');
    }
    this.finish(stack.id, { kind: 'abort', reason: reasons.cancelled(stack.action) });
  }

  /** PATCH .../resources/{name} {mark_unhealthy}: CHECK_FAILED now, replaced by the next update. */
  markUnhealthy(stack: StackRecord, resourceName: string, unhealthy: boolean, reason: string | undefined): void {
    const res = findResource(stack, resourceName);
    if (!res || isDeleted(stack)) throw heatErrors.resourceNotFound(resourceName, stack.name);
    if (res.status === 'IN_PROGRESS') throw heatErrors.actionInProgress(stack.name, res.action);
    this.mutate(() => {
      const now = heatTime();
      if (unhealthy) setResourceStatus(stack, res, 'CHECK', 'FAILED', reason ?? 'state changed', now);
      else if (res.action === 'CHECK' && res.status === 'FAILED') setResourceStatus(stack, res, 'CHECK', 'COMPLETE', reason ?? 'state changed', now);
    });
  }

  /** After a restart: re-arm every operation that was still running. */
  resumeAll(): void {
    for (const stack of Object.values(this.store.data.stacks)) {
      if (stack.pending) {
        this.log.info({ stack: stack.name, action: stack.pending.action }, 'resuming in-progress stack operation');
        this.arm(stack);
      }
    }
  }

  /** A hang fault was removed: the operations it held complete now. */
  releaseHang(faultId: string): void {
    for (const stack of Object.values(this.store.data.stacks)) {
      if (stack.pending?.hangFaultId === faultId) this.finish(stack.id, this.outcomeOf(stack));
    }
  }

  stopTimers(): void {
    for (const id of [...this.timers.keys()]) this.clearTimer(id);
  }

  private assertMutable(stack: StackRecord): void {
    if (stack.parentId) throw heatErrors.badRequest('Updating a nested stack directly is not supported; update its parent.');
    if (isDeleted(stack)) throw heatErrors.stackNotFound(stack.name);
    if (stack.status === 'IN_PROGRESS') throw heatErrors.actionInProgress(stack.name, stack.action);
    if (stack.action === 'DELETE') throw heatErrors.badRequest('Updating a stack when it is deleting is not supported.', 'NotSupported');
  }

  private planner(environment: StackEnvironment): Planner {
    return new Planner({ state: this.store.data, now: heatTime(), sshCidr: this.settings.sshCidr, environment });
  }

  /** Runs a state change as a transaction; template problems become Heat 400s. */
  private mutate<T>(fn: () => T): T {
    return asHeatError(() => this.store.transaction(fn));
  }

  /** Records the pending operation on the root, consuming a matching fault. */
  private begin(root: StackRecord, action: StackAction): void {
    const fault = this.faults.take(action.toLowerCase() as 'create' | 'update' | 'delete', root.name);
    const now = Date.now();
    root.pending = {
      action,
      dueAt: fault?.mode === 'hang' ? undefined : now + this.settings.delayMs,
      hangFaultId: fault?.mode === 'hang' ? fault.id : undefined,
      failReason: fault?.mode === 'fail' ? fault.reason ?? DEFAULT_FAULT_REASON : undefined,
      timeoutAt: root.timeoutMins ? now + root.timeoutMins * 60_000 : undefined,
    };
    this.log.info({ stack: root.name, id: root.id, action, fault: fault?.mode }, `stack ${action} started`);
  }

  private arm(root: StackRecord): void {
    this.clearTimer(root.id);
    const pending = root.pending;
    if (!pending) return;
    const now = Date.now();
    if (pending.hangFaultId) {
      if (!this.faults.get(pending.hangFaultId)) this.schedule(root.id, 0, this.outcomeOf(root));
      else if (pending.timeoutAt) this.schedule(root.id, pending.timeoutAt - now, { kind: 'abort', reason: 'Timed out' });
      return;
    }
    this.schedule(root.id, (pending.dueAt ?? now) - now, this.outcomeOf(root));
  }

  private outcomeOf(root: StackRecord): Outcome {
    const reason = root.pending?.failReason;
    return reason === undefined ? { kind: 'complete' } : { kind: 'fail', reason };
  }

  private schedule(rootId: string, delayMs: number, outcome: Outcome): void {
    const timer = setTimeout(() => this.finish(rootId, outcome), Math.max(0, delayMs));
    this.timers.set(rootId, timer);
  }

  /**
   * Ends the pending operation as one transaction: when the state cannot be saved (a full disk)
   * the stack stays IN_PROGRESS, as it was on disk, and the end is tried again a second later.
   */
  private finish(rootId: string, outcome: Outcome): void {
    this.clearTimer(rootId);
    try {
      const root = this.store.transaction(() => {
        const stack = this.store.data.stacks[rootId];
        if (!stack?.pending) return undefined;
        finishOperation(this.store.data, stack, outcome, heatTime());
        return stack;
      });
      if (root) this.log.info({ stack: root.name, id: root.id, status: `${root.action}_${root.status}`, reason: root.reason }, 'stack operation finished');
    } catch (err) {
      this.log.error({ err, stack: rootId }, 'the end of a stack operation could not be saved; trying again in 1 s');
      this.schedule(rootId, FINISH_RETRY_MS, outcome);
    }
  }

  private clearTimer(rootId: string): void {
    const timer = this.timers.get(rootId);
    if (timer) clearTimeout(timer);
    this.timers.delete(rootId);
  }
}

function asHeatError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TemplateError) throw new HeatError(400, err.message, err.heatType);
    throw err;
  }
}

/** Heat accepts file contents as strings; be tolerant of objects (serialised as JSON). */
function normaliseFiles(files: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, content] of Object.entries(files ?? {})) {
    out[name] = typeof content === 'string' ? content : JSON.stringify(content);
  }
  return out;
}

function parseEnvironment(raw: unknown): StackEnvironment {
  let env = raw;
  if (typeof raw === 'string') {
    try {
      env = YAML.parse(raw);
    } catch (err) {
      throw new TemplateError(`Error parsing environment: ${(err as Error).message}`, 'HTTPBadRequest');
    }
  }
  const section = (key: string) => (isPlainObject(env) && isPlainObject(env[key]) ? (env[key] as Record<string, unknown>) : {});
  return { parameters: section('parameters'), parameter_defaults: section('parameter_defaults'), resource_registry: section('resource_registry') };
}
