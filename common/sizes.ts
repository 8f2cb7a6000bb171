/** Byte sizes in settings: a number of bytes, or with a KiB/MiB/GiB (k/m/g) suffix ("8MiB", "20g"). */
const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
const UNITS: Record<string, number> = { '': 1, b: 1, k: KiB, kb: KiB, kib: KiB, m: MiB, mb: MiB, mib: MiB, g: GiB, gb: GiB, gib: GiB };

export function parseSize(value: string | undefined, variable: string, dflt: number): number {
  if (value === undefined || value.trim() === '') return dflt;
  const m = /^(\d+)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?$/i.exec(value.trim());
  const n = m ? Number(m[1]) * UNITS[(m[2] ?? '').toLowerCase()]! : NaN;
  if (!(Number.isSafeInteger(n) && n > 0)) throw new Error(`${variable}: "${value.slice(0, 40)}" is not a size (bytes, or with a KiB/MiB/GiB suffix, e.g. 8MiB)`);
  return n;
}

export function formatBytes(n: number): string {
  return n % GiB === 0 ? `${n / GiB} GiB` : n % MiB === 0 ? `${n / MiB} MiB` : n % KiB === 0 ? `${n / KiB} KiB` : `${n} bytes`;
}
