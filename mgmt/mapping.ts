/**
 * Which artifact files are run by which built-in driver. Operators migrating
 * from Tacker keep their packages: Tacker's sample Mgmt Driver files map to
 * our equivalents. MGMT_DRIVER_MAP (a JSON file {"<path or file name>":
 * "<driver>"}) adds or overrides entries.
 */
import fs from 'node:fs';
import path from 'node:path';

export const DEFAULT_DRIVER_MAP: Record<string, string> = {
  'private_registry_mgmt.py': 'private-registry',
  // Tacker's Kubernetes cluster driver: the built-in cluster engine (docs/cluster-engine.md).
  'kubernetes_mgmt.py': 'kubernetes',
  // Tacker's sample coordinate script (pickled stdin, Tacker imports): our built-in coordination action.
  'coordinate_vnf.py': 'coordination',
};

let cached: Record<string, string> | undefined;

export function driverMap(): Record<string, string> {
  if (cached) return cached;
  const file = process.env.MGMT_DRIVER_MAP;
  const extra = file ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>) : {};
  cached = { ...DEFAULT_DRIVER_MAP, ...extra };
  return cached;
}

/** A script named in a request, as a package path (Tacker's requests write "./Scripts/x.py"). */
export const scriptPath = (p?: string) => p?.replace(/^\.\//, '');

/** The built-in driver name for an artifact file, by its package path or its file name. */
export function mappedDriver(file: string | undefined): string | undefined {
  if (!file) return undefined;
  const map = driverMap();
  return map[file] ?? map[path.posix.basename(file)];
}
