/** Timestamp formats of the emulated APIs. */

/** Nova, Neutron, Glance: 2024-05-01T10:20:30Z. */
export function isoSeconds(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Cinder and Nova's launched_at: 2024-05-01T10:20:30.123000 (microseconds, no zone). */
export function isoMicros(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000');
}
