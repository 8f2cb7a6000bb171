/** Built-in drivers by name (on the worker), and how a hook binding resolves to a runner. */
import type { LcmHookBinding } from '../model/vnfd';
import { kubernetesSpec } from './kubernetes/spec';
import { privateRegistryDriver } from './private-registry/driver';
import { resolveHookWith, type HookRunner } from './resolve';
import type { BuiltinDriver } from './types';

export const BUILTIN_DRIVERS: Record<string, BuiltinDriver> = {
  [privateRegistryDriver.name]: privateRegistryDriver,
  // every hook it acts on is a workflow of the cluster engine (cluster/workflows/vnf-hooks.ts)
  [kubernetesSpec.name]: { ...kubernetesSpec, hooks: {} },
};

export function resolveHook(binding: LcmHookBinding, readFile: (p: string) => Promise<Buffer | undefined>): Promise<HookRunner<BuiltinDriver>> {
  return resolveHookWith(BUILTIN_DRIVERS, binding, readFile);
}
