/** Timestamp formats of the emulated APIs. */

/** Heat prints times without fractional seconds: 2024-05-01T10:20:30Z. */
export function heatTime(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Keystone prints token times with microseconds: 2024-05-01T10:20:30.123000Z. */
export function keystoneTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
