/**
 * Injected cloud faults (admin API, in memory only): the next `times`
 * operations of a kind on resources whose name matches fail or hang.
 * `match` is a substring of the resource name, or /regex/flags.
 * Removing a fault releases what its hang holds (listeners do that).
 * An image pull fault (target image, operation pull, mode hang) holds every
 * image pull of the machines (servers) whose name matches while it exists,
 * as a registry that does not serve them yet would.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';

export const FaultSpec = z
  .object({
    target: z.enum(['server', 'port', 'volume', 'image']),
    operation: z.enum(['create', 'delete', 'rebuild', 'pull']),
    mode: z.enum(['fail', 'hang']),
    message: z.string().min(1).max(1000).optional(),
    code: z.number().int().min(400).max(599).optional(),
    match: z.string().min(1).max(500).optional(),
    times: z.number().int().positive().max(1_000_000).optional(),
  })
  .strict()
  .superRefine((f, ctx) => {
    if (f.operation === 'rebuild' && f.target !== 'server') ctx.addIssue({ code: 'custom', message: 'only servers are rebuilt', path: ['operation'] });
    // Neutron answers port requests at once: there is nothing to hold.
    if (f.target === 'port' && f.mode === 'hang') ctx.addIssue({ code: 'custom', message: 'port operations are synchronous: only mode fail', path: ['mode'] });
    if ((f.target === 'image') !== (f.operation === 'pull')) ctx.addIssue({ code: 'custom', message: 'operation pull goes with target image, and target image with operation pull', path: ['operation'] });
    if (f.target === 'image' && f.mode !== 'hang') ctx.addIssue({ code: 'custom', message: 'an image pull fault holds pulls until it is removed: only mode hang', path: ['mode'] });
  });
export type FaultSpec = z.infer<typeof FaultSpec>;

export interface Fault extends FaultSpec {
  id: string;
  times: number;
  used: number;
  createdAt: string;
}

function matcher(match: string | undefined): (name: string) => boolean {
  if (match === undefined) return () => true;
  const re = /^\/(.+)\/([a-z]*)$/s.exec(match);
  if (re) {
    const regex = new RegExp(re[1], re[2]);
    return (name) => regex.test(name);
  }
  return (name) => name.includes(match);
}

export class Faults {
  private faults: (Fault & { test: (name: string) => boolean })[] = [];
  private readonly removedListeners: ((fault: Fault) => void)[] = [];

  /** Throws SyntaxError for an invalid /regex/. */
  add(spec: FaultSpec): Fault & { remaining: number } {
    const test = matcher(spec.match);
    const fault: Fault = { ...spec, id: randomUUID(), times: spec.times ?? 1, used: 0, createdAt: new Date().toISOString() };
    this.faults.push({ ...fault, test });
    return { ...fault, remaining: fault.times };
  }

  list(): (Fault & { remaining: number })[] {
    return this.faults.map(({ test: _test, ...f }) => ({ ...f, remaining: f.times - f.used }));
  }

  has(id: string): boolean {
    return this.faults.some((f) => f.id === id);
  }

  /** Removes one fault (or all); returns how many went. */
  remove(id?: string): number {
    const gone = this.faults.filter((f) => id === undefined || f.id === id);
    this.faults = this.faults.filter((f) => !gone.includes(f));
    for (const fault of gone) for (const listener of this.removedListeners) listener(fault);
    return gone.length;
  }

  onRemoved(listener: (fault: Fault) => void): void {
    this.removedListeners.push(listener);
  }

  /** A hang fault holding this operation while it exists (not used up: image pulls). */
  holds(target: Fault['target'], operation: Fault['operation'], name: string): boolean {
    return this.faults.some((f) => f.target === target && f.operation === operation && f.mode === 'hang' && f.test(name));
  }

  /** The fault hitting this operation now, used up once; undefined when none applies. */
  take(target: Fault['target'], operation: Fault['operation'], name: string): Fault | undefined {
    const fault = this.faults.find((f) => f.target === target && f.operation === operation && f.used < f.times && f.test(name));
    if (!fault) return undefined;
    fault.used++;
    return fault;
  }
}
