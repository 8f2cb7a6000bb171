import { PackageError } from './package-error';

/**
 * TOSCA scalar-unit.size units in bytes. Decimal and binary spellings are
 * treated alike (GB == GiB): VNFD authors write "4 GB" for a 4096 MB Nova
 * flavor, and Nova/Cinder sizes are binary, so strict decimal conversion
 * would produce sizes nobody meant (3814.7 MB).
 */
const UNIT_BYTES: Record<string, number> = {
  b: 1,
  kb: 1024, kib: 1024,
  mb: 1024 ** 2, mib: 1024 ** 2,
  gb: 1024 ** 3, gib: 1024 ** 3,
  tb: 1024 ** 4, tib: 1024 ** 4,
};

/** "512 MB" -> 512 (unit 'MB'); "4 GB" -> 4096 (unit 'MB'); "1 GB" -> 1 (unit 'GB'); "1 KB" -> 1024 (unit 'B'). */
export function sizeIn(unit: 'B' | 'MB' | 'GB', value: unknown, where: string, what: string): number {
  const match = typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$/.exec(value) : null;
  const factor = match ? UNIT_BYTES[match[2].toLowerCase()] : undefined;
  if (!match || factor === undefined || !Number.isFinite(Number(match[1]) * factor)) {
    throw new PackageError(`${where}: ${what} must be a size such as "512 MB" or "4 GB", got ${JSON.stringify(value)}`);
  }
  return (Number(match[1]) * factor) / UNIT_BYTES[unit.toLowerCase()];
}

export function optSizeIn(unit: 'B' | 'MB' | 'GB', value: unknown, where: string, what: string): number | undefined {
  return value === undefined || value === null ? undefined : sizeIn(unit, value, where, what);
}
