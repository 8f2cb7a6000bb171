/** The one stack wait (workflow-steps/stack.ts pollStack) over the test's own status and redrive activities, for test/e2e/stack-wait. */
import { proxyActivities } from '@temporalio/workflow';
import type { StackStatus } from '../../infra/stack-driver';
import { pollStack, type StackAction } from '../../workflow-steps/stack';

const stack = proxyActivities<{ status(): Promise<StackStatus | null>; redrive(): Promise<'UPDATE' | 'DELETE'>; send(ms: number): Promise<void> }>({
  startToCloseTimeout: '10s', retry: { maximumAttempts: 1 },
});

/** sendMs: the wait follows a request (the probe's `send`) that Heat took that long to answer. */
export async function stackWaitProbe(action: StackAction, sendMs?: number): Promise<void> {
  let sentAt: number | undefined;
  if (sendMs !== undefined) {
    sentAt = Date.now();
    await stack.send(sendMs);
  }
  const polling = sendMs === undefined ? { heatPollMs: 10, heatPollMaxMs: 20 } : { heatPollMs: 10, heatPollMaxMs: 5_000 };
  await pollStack({ status: () => stack.status(), redrive: () => stack.redrive(), gone: 'the probe stack is gone' }, action, polling, sentAt);
}
