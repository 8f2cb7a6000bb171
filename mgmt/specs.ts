/**
 * The built-in drivers as the API sees them: names and parameter checks only,
 * so the API does not load the SSH layer the drivers run on (mgmt/registry.ts
 * has the drivers themselves, for the worker).
 */
import type { LcmHookBinding } from '../model/vnfd';
import { kubernetesSpec } from './kubernetes/spec';
import { privateRegistrySpec } from './private-registry/spec';
import { resolveHookWith, type HookRunner } from './resolve';
import type { DriverSpec } from './types';

export const DRIVER_SPECS: Record<string, DriverSpec> = {
  [privateRegistrySpec.name]: privateRegistrySpec,
  [kubernetesSpec.name]: kubernetesSpec,
};

export function resolveHookSpec(binding: LcmHookBinding, readFile: (p: string) => Promise<Buffer | undefined>): Promise<HookRunner<DriverSpec>> {
  return resolveHookWith(DRIVER_SPECS, binding, readFile);
}
