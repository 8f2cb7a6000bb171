/** How a VNFD hook binding resolves to what runs it, over a table of built-in drivers (specs for the API, drivers for the worker). */
import type { LcmHookBinding } from '../model/vnfd';
import { mappedDriver } from './mapping';
import type { DriverSpec } from './types';

export type HookRunner<D extends DriverSpec> =
  | { kind: 'builtin'; driver: D }
  | { kind: 'script'; file: string }
  | { kind: 'none'; reason: string };

/** Built-in by mapping first; else an executable script (#!) in the package; else none. */
export async function resolveHookWith<D extends DriverSpec>(
  drivers: Record<string, D>, binding: LcmHookBinding, readFile: (p: string) => Promise<Buffer | undefined>,
): Promise<HookRunner<D>> {
  const name = mappedDriver(binding.file);
  if (name) {
    const driver = drivers[name];
    return driver ? { kind: 'builtin', driver } : { kind: 'none', reason: `the driver mapping names "${name}", which is not a built-in driver` };
  }
  const content = binding.file ? await readFile(binding.file) : undefined;
  if (content && content.subarray(0, 2).toString() === '#!') return { kind: 'script', file: binding.file! };
  return {
    kind: 'none',
    reason: `artifact "${binding.artifact}"${binding.file ? ` (${binding.file})` : ''} is neither a mapped built-in driver nor an executable script (#!)`,
  };
}
