/**
 * Injected faults (admin API). A fault matches the next `times` operations of
 * its kind on top-level stacks whose name equals or contains `stackName`.
 * Faults live in the persisted state, so a hang survives a restart.
 */
import type { StateStore } from '../state/store';
import type { FaultOperation, FaultRecord } from '../state/model';
import { newUuid } from '../util/ids';
import { heatTime } from '../util/time';

export interface FaultSpec {
  operation: FaultOperation;
  stackName?: string;
  mode: 'fail' | 'hang';
  reason?: string;
  times?: number;
}

export class FaultRegistry {
  constructor(private readonly store: StateStore) {}

  add(spec: FaultSpec): FaultRecord {
    const fault: FaultRecord = {
      id: newUuid(),
      operation: spec.operation,
      stackName: spec.stackName,
      mode: spec.mode,
      reason: spec.reason,
      times: spec.times ?? 1,
      used: 0,
      createdAt: heatTime(),
    };
    this.store.data.faults.push(fault);
    this.store.save();
    return fault;
  }

  list(): FaultRecord[] {
    return this.store.data.faults;
  }

  get(id: string): FaultRecord | undefined {
    return this.store.data.faults.find((f) => f.id === id);
  }

  /** Removes faults (all when ids is undefined); returns the removed ones. */
  remove(ids?: string[]): FaultRecord[] {
    const state = this.store.data;
    const removed = state.faults.filter((f) => !ids || ids.includes(f.id));
    state.faults = state.faults.filter((f) => !removed.includes(f));
    this.store.save();
    return removed;
  }

  /** Finds the fault for an operation and uses it up once. Call inside a state transaction. */
  take(operation: FaultOperation, topStackName: string): FaultRecord | undefined {
    const fault = this.store.data.faults.find(
      (f) =>
        f.operation === operation &&
        f.used < f.times &&
        (f.stackName === undefined || f.stackName === topStackName || topStackName.includes(f.stackName)),
    );
    if (fault) fault.used++;
    return fault;
  }
}

export const DEFAULT_FAULT_REASON = 'Fault injected by the VIM simulator';
