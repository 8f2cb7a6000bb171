/** TerminateVnf needs an instantiated instance; nothing else to check. */
import type { PrecheckInput, StartPlan } from '../../operation';
import { requireInstantiated } from '../instance-checks';
import type { TerminateVnfRequest } from './request';

export async function precheckTerminate(_: PrecheckInput<TerminateVnfRequest>): Promise<StartPlan> {
  return { precondition: requireInstantiated };
}
