/**
 * One driver for the Heat stacks of every kind of operation (VNF instances,
 * clusters), keyed on a stack reference: which VIM, the stack's name, and
 * its id once known. Every call is idempotent: a create finds a stack of
 * that name instead of making a second one, an update or delete already
 * under way is not started twice. It knows nothing of VNFs or clusters: the
 * callers map their resources to references and save the ids it returns.
 * Waiting is the workflows' (durable timers around `status`).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { SecretBox } from '../common/secrets';
import type { Store } from '../store';
import type { HeatClient, HeatResourceRow, HeatStack, StackShow, StackTemplate } from './openstack/heat';
import { OpenStackHttpError } from './openstack/http';
import { heatForVim } from './vim';

export interface StackRef {
  vimId: string;
  name: string;
  /** Known once Heat returned it; without it the stack is found by name. */
  id?: string | null;
}

export interface StackStatus { id: string; name: string; status: string; reason?: string }

/** Heat's 4xx answers to our own requests will not get better on retry. */
export function nonRetryable4xx(e: unknown): unknown {
  if (e instanceof OpenStackHttpError && e.status >= 400 && e.status < 500 && e.status !== 401 && e.status !== 409) {
    return ApplicationFailure.nonRetryable(e.message, 'VimRejected');
  }
  return e;
}

export class StackDriver {
  constructor(private readonly heatOf: (vimId: string) => Promise<HeatClient>) {}

  static forStore(db: Store, box: SecretBox): StackDriver {
    return new StackDriver((vimId) => heatForVim(db, box, vimId));
  }

  /**
   * The live stack: by id, else by name (a stack deleted and made again has a new id). `byId` only: no lookup by
   * name (a stack list, dear for Heat) when the id is unknown or its stack deleted.
   */
  async find(ref: StackRef, opts: StackShow & { byId?: boolean } = {}): Promise<HeatStack | null> {
    const heat = await this.heatOf(ref.vimId);
    let s = ref.id ? await heat.getStack(ref.name, ref.id, opts) : null;
    if (!opts.byId && (!s || s.stack_status === 'DELETE_COMPLETE')) s = (await heat.findStack(ref.name, opts)) ?? s;
    return s;
  }

  /** The stack's status, as the workflows poll it: without its outputs. */
  async status(ref: StackRef, o: { byId?: boolean } = {}): Promise<StackStatus | null> {
    const s = await this.find(ref, { outputs: false, ...o });
    return s ? { id: s.id, name: ref.name, status: s.stack_status, reason: s.stack_status_reason } : null;
  }

  /**
   * Creates the stack unless one of that name exists; its id either way. `timeoutMins`: Heat's own deadline for the create.
   * Heat refuses a second live stack of a name in a project (409), so the create is asked first and the lookup
   * (a stack list, dear for Heat) is made only when it says so: after a retry, or when a stack was left behind.
   */
  async create(ref: StackRef, template: () => Promise<StackTemplate>, timeoutMins?: number): Promise<{ id: string; created: boolean }> {
    const heat = await this.heatOf(ref.vimId);
    const spec = await template();
    try {
      return { id: (await heat.createStack(ref.name, spec, timeoutMins)).id, created: true };
    } catch (e) {
      if (e instanceof OpenStackHttpError && e.status === 409) {
        const live = await heat.findStack(ref.name);
        if (live) return { id: live.id, created: false };
      }
      throw nonRetryable4xx(e);
    }
  }

  /**
   * Updates the stack (PATCH: the given parts over what it has; PUT: exactly these); an empty PATCH makes
   * Heat converge it again. An update already running is not started twice.
   */
  async update(ref: StackRef, template: () => Promise<Partial<StackTemplate>>, method: 'PATCH' | 'PUT' = 'PATCH'): Promise<StackStatus> {
    const s = await this.find(ref);
    if (!s || s.stack_status === 'DELETE_COMPLETE') throw ApplicationFailure.nonRetryable(`stack ${ref.name} does not exist`, 'StackFailed');
    if (!s.stack_status.endsWith('_IN_PROGRESS')) {
      try {
        await (await this.heatOf(ref.vimId)).updateStack(ref.name, s.id, await template(), method);
      } catch (e) {
        throw nonRetryable4xx(e);
      }
    }
    return { id: s.id, name: ref.name, status: s.stack_status, reason: s.stack_status_reason };
  }

  /** Starts deleting the stack; false when there is none left. */
  async delete(ref: StackRef): Promise<boolean> {
    const s = await this.find(ref);
    if (!s || s.stack_status === 'DELETE_COMPLETE') return false;
    if (s.stack_status !== 'DELETE_IN_PROGRESS') await (await this.heatOf(ref.vimId)).deleteStack(ref.name, s.id);
    return true;
  }

  /** Stops Heat's running create or update without rollback (a FORCEFUL cancel). */
  async abort(ref: StackRef): Promise<void> {
    const s = await this.find(ref);
    if (s && s.stack_status.endsWith('_IN_PROGRESS') && !s.stack_status.startsWith('DELETE')) {
      await (await this.heatOf(ref.vimId)).stackAction(ref.name, s.id, 'cancel_without_rollback');
    }
  }

  /**
   * Drives a stack Heat failed when its engine went down on to the end of that operation: a failed delete
   * is deleted again, a failed create or update is updated to its own template. Returns what to wait for.
   */
  async redrive(ref: StackRef): Promise<{ waitFor: 'UPDATE' | 'DELETE'; was?: string }> {
    const s = await this.find(ref);
    if (!s || s.stack_status.startsWith('DELETE')) {
      if (s?.stack_status === 'DELETE_FAILED') await (await this.heatOf(ref.vimId)).deleteStack(ref.name, s.id);
      return { waitFor: 'DELETE', was: s?.stack_status };
    }
    if (s.stack_status.endsWith('_FAILED')) {
      try {
        await (await this.heatOf(ref.vimId)).updateStack(ref.name, s.id, {}, 'PATCH');
      } catch (e) {
        throw nonRetryable4xx(e);
      }
    }
    return { waitFor: 'UPDATE', was: s.stack_status };
  }

  async resources(ref: StackRef & { id: string }, nestedDepth = 3): Promise<HeatResourceRow[]> {
    return (await this.heatOf(ref.vimId)).listResources(ref.name, ref.id, nestedDepth);
  }

  /** Marks a resource of the stack (or of a nested stack: its own reference) unhealthy, for the next update to replace. */
  async markUnhealthy(ref: StackRef & { id: string }, resource: string, reason: string): Promise<void> {
    await (await this.heatOf(ref.vimId)).markUnhealthy(ref.name, ref.id, resource, reason);
  }
}
