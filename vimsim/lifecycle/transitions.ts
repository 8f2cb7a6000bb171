/**
 * Timed state changes of servers and volumes (BUILD → ACTIVE, deleting →
 * gone, creating → available, ...). The pending change is part of the record
 * (so it survives a restart); committing a record with one arms a timer, the
 * timer hands the record to its kind's completer when due. A change held by
 * a 'hang' fault waits until that fault is removed (or the simulator
 * restarts: faults live in memory).
 */
import type { Logger } from 'pino';
import type { Faults } from '../faults/registry';
import type { Pending } from '../store/records';
import type { Change, Store } from '../store/store';

type Timed = 'servers' | 'volumes';
export type Completer = (id: string, pending: Pending) => void;

export interface Timing {
  /** How long every timed change takes (runtime-adjustable through /sim/config). */
  delayMs: number;
}

export class Transitions {
  private readonly timers = new Map<string, { due: number; timer: NodeJS.Timeout }>();
  private readonly completers = new Map<Timed, Completer>();
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly faults: Faults,
    readonly timing: Timing,
    private readonly log: Logger,
  ) {
    store.onCommit((changes) => this.follow(changes));
    faults.onRemoved((fault) => this.release(fault.id));
  }

  register(kind: Timed, completer: Completer): void {
    this.completers.set(kind, completer);
  }

  /** A new pending change; a 'hang' fault holds it, a 'fail' one decides its failure. */
  pending(op: string, fault?: { id: string; mode: 'fail' | 'hang'; message?: string; code?: number }, defaults?: { message: string; code: number }, args?: Pending['args']): Pending {
    const p: Pending = { op, due: Date.now() + this.timing.delayMs };
    if (args) p.args = args;
    if (fault?.mode === 'hang') p.heldBy = fault.id;
    if (fault?.mode === 'fail') p.failure = { message: fault.message ?? defaults?.message ?? 'Failed', code: fault.code ?? defaults?.code ?? 500 };
    return p;
  }

  /** Arms the timers of every pending change in the store (at start: a restart resumes them). */
  resume(): void {
    for (const kind of this.completers.keys()) {
      for (const record of this.store.list(kind)) {
        const p = record.pending;
        if (!p) continue;
        if (p.heldBy && !this.faults.has(p.heldBy)) this.store.put(kind, { ...record, pending: { ...p, heldBy: undefined } } as never);
        else this.arm(kind, record.id, p);
      }
    }
  }

  stop(): void {
    this.stopped = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private follow(changes: Change[]): void {
    for (const c of changes) {
      if (c.kind !== 'servers' && c.kind !== 'volumes') continue;
      const pending = (c.after as { pending: Pending | null } | undefined)?.pending;
      if (pending) this.arm(c.kind, c.id, pending);
      else this.disarm(`${c.kind}:${c.id}`);
    }
  }

  private arm(kind: Timed, id: string, pending: Pending): void {
    const key = `${kind}:${id}`;
    if (this.stopped || pending.heldBy) return this.disarm(key);
    const existing = this.timers.get(key);
    if (existing?.due === pending.due) return;
    this.disarm(key);
    const timer = setTimeout(() => this.fire(kind, id), Math.max(0, pending.due - Date.now()));
    this.timers.set(key, { due: pending.due, timer });
  }

  private disarm(key: string): void {
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing.timer);
    this.timers.delete(key);
  }

  private fire(kind: Timed, id: string): void {
    this.timers.delete(`${kind}:${id}`);
    const record = this.store.get(kind, id);
    const pending = record?.pending;
    if (!pending || pending.heldBy) return;
    if (pending.due > Date.now()) return this.arm(kind, id, pending);
    try {
      this.completers.get(kind)?.(id, pending);
    } catch (err) {
      this.log.error({ err, kind, id, op: pending.op }, 'timed change failed; retrying');
      setTimeout(() => this.arm(kind, id, { ...pending, due: Date.now() + 1000 }), 1000).unref();
    }
  }

  /** The fault is gone: what it held proceeds now. */
  private release(faultId: string): void {
    this.store.tx(() => {
      for (const kind of this.completers.keys()) {
        for (const record of this.store.list(kind)) {
          if (record.pending?.heldBy === faultId) this.store.put(kind, { ...record, pending: { ...record.pending, heldBy: undefined, due: Date.now() } } as never);
        }
      }
    });
  }
}
