/** A one-step operation whose step always fails: drives the op engine alone, for test/engine-decisions. */
import { ApplicationFailure } from '@temporalio/workflow';
import type { LcmOpInput } from '../../engine/contracts';
import { runOperation } from '../../engine/etsi-op-occ';

export async function engineProbe(input: LcmOpInput): Promise<string> {
  return runOperation(input, [{
    name: 'always fails',
    run: async () => { throw ApplicationFailure.nonRetryable('boom'); },
  }]);
}
