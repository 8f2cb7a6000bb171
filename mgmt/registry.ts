/** Built-in drivers by name (on the worker), and how a hook binding resolves to a runner. */
import type { LcmHookBinding } from '../vnfpkg/vnfd-model';
import { privateRegistryDriver } from './private-registry/driver';
import { resolveHookWith, type HookRunner } from './resolve';
import type { BuiltinDriver } from './types';

export const BUILTIN_DRIVERS: Record<string, BuiltinDriver> = {
  [privateRegistryDriver.name]: privateRegistryDriver,
};

export function resolveHook(binding: LcmHookBinding, readFile: (p: string) => Promise<Buffer | undefined>): Promise<HookRunner<BuiltinDriver>> {
  return resolveHookWith(BUILTIN_DRIVERS, binding, readFile);
}
