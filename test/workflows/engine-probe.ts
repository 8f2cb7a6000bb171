/** A one-step operation whose step always fails: drives the op engine alone, for test/engine-decisions. */
import { ApplicationFailure } from '@temporalio/workflow';
import type { LcmOpInput } from '../../workflows/definitions';
import { runOperation } from '../../workflows/engine';

export async function engineProbe(input: LcmOpInput): Promise<string> {
  return runOperation(input, [{
    name: 'always fails',
    run: async () => { throw ApplicationFailure.nonRetryable('boom'); },
  }]);
}
