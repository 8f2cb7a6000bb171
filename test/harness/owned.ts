/**
 * What a test file created on the shared harness, recorded by test/support/api.ts
 * on the file's global object and checked after the file by
 * test/harness/leak-check-environment.ts.
 */
export const OWNED = '__nfvTestOwned';

export interface Owned {
  /** Simulator faults the file injected (ids). */
  faults: string[];
  /** Magnum clusters the file created (uuids). */
  clusters: string[];
  /** VNF LCM operations the file started (op occ ids, from the 202's Location). */
  operations: string[];
}

/** Records that this file created `id` (a no-op outside the leak-checking environment). */
export function own(kind: keyof Owned, id: string | undefined): void {
  const owned = (globalThis as Record<string, unknown>)[OWNED] as Owned | undefined;
  if (owned && id) owned[kind].push(id);
}
