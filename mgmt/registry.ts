/** Built-in drivers by name, and how a hook binding resolves to a runner. */
import type { LcmHookBinding } from '../vnfpkg/vnfd-model';
import { mappedDriver } from './mapping';
import { privateRegistryDriver } from './private-registry/driver';
import type { BuiltinDriver } from './types';

export const BUILTIN_DRIVERS: Record<string, BuiltinDriver> = {
  [privateRegistryDriver.name]: privateRegistryDriver,
};

export type HookRunner =
  | { kind: 'builtin'; driver: BuiltinDriver }
  | { kind: 'script'; file: string }
  | { kind: 'none'; reason: string };

/** Built-in by mapping first; else an executable script (#!) in the package; else none. */
export async function resolveHook(binding: LcmHookBinding, readFile: (p: string) => Promise<Buffer | undefined>): Promise<HookRunner> {
  const name = mappedDriver(binding.file);
  if (name) {
    const driver = BUILTIN_DRIVERS[name];
    return driver ? { kind: 'builtin', driver } : { kind: 'none', reason: `the driver mapping names "${name}", which is not a built-in driver` };
  }
  const content = binding.file ? await readFile(binding.file) : undefined;
  if (content && content.subarray(0, 2).toString() === '#!') return { kind: 'script', file: binding.file! };
  return {
    kind: 'none',
    reason: `artifact "${binding.artifact}"${binding.file ? ` (${binding.file})` : ''} is neither a mapped built-in driver nor an executable script (#!)`,
  };
}
