/**
 * The extension point for VNFD Vnflcm hooks. A hook's artifact is resolved to
 * a runner; none are registered yet (Mgmt Drivers come later), so a VNFD that
 * binds a hook fails that step cleanly, naming the hook and the artifact.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { LcmHook, LcmHookBinding } from '../vnfpkg/vnfd-model';
import type { ActivityDeps } from './deps';
import { flavourOf, loadOpOcc } from './records';

export interface HookContext {
  opOccId: string;
  vnfInstanceId: string;
  hook: LcmHook;
  binding: LcmHookBinding;
  /** The VNFCs the hook is about (healed, added or to be removed); undefined = all. */
  vnfcIds?: string[];
}
export type HookRunner = (ctx: HookContext, deps: ActivityDeps) => Promise<void>;

/** Runners by artifact file or name; later issues register Mgmt Drivers here. */
export const hookRunners = new Map<string, HookRunner>();

export function hookActivities(deps: ActivityDeps) {
  const { db, box } = deps;
  return {
    async runLcmHook({ opOccId, hook, vnfcIds }: { opOccId: string; hook: LcmHook; vnfcIds?: string[] }): Promise<void> {
      const { inst, flavour } = flavourOf(db, box, loadOpOcc(db, opOccId));
      const binding = flavour?.hooks[hook];
      if (!binding) return;
      const runner = hookRunners.get(binding.file ?? '') ?? hookRunners.get(binding.artifact);
      if (!runner) {
        throw ApplicationFailure.nonRetryable(
          `no runner for hook ${hook}: artifact "${binding.artifact}"${binding.file ? ` (${binding.file})` : ''} is not a supported Mgmt Driver`,
          'NoHookRunner',
        );
      }
      await runner({ opOccId, vnfInstanceId: inst.id, hook, binding, vnfcIds }, deps);
    },
  };
}
