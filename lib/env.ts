/** Settings read from the environment, by the product and the simulator alike. */

/** A non-negative integer setting; the default when unset or empty, an error naming it when not an integer. */
export function intFromEnv(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}
