/** The one stack wait (workflow-steps/stack.ts pollStack) over the test's own status and redrive activities, for test/e2e/stack-wait. */
import { proxyActivities } from '@temporalio/workflow';
import type { StackStatus } from '../../infra/stack-driver';
import { pollStack, type StackAction } from '../../workflow-steps/stack';

const stack = proxyActivities<{ status(): Promise<StackStatus | null>; redrive(): Promise<'UPDATE' | 'DELETE'> }>({
  startToCloseTimeout: '10s', retry: { maximumAttempts: 1 },
});

export async function stackWaitProbe(action: StackAction): Promise<void> {
  await pollStack({ status: () => stack.status(), redrive: () => stack.redrive(), gone: 'the probe stack is gone' }, action, { heatPollMs: 10, heatPollMaxMs: 20 });
}
