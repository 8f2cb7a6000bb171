/**
 * Heat stack steps shared by the LCM workflows. Waiting is a loop of status
 * polls separated by workflow timers (durable, cheap, cancellable), never a
 * sleep inside an activity.
 */
import { ApplicationFailure, patched, sleep } from '@temporalio/workflow';
import type { StackStatus } from '../infra/stack-driver';
import { acts, preludeStackRead, stackPolls } from './activities';
import { HEAT_POLL_MAX_MS_DEFAULT, nextInterval, pollDelay } from './poll-schedule';

/** How a workflow polls Heat: heatPollMs first, x1.5 per poll up to heatPollMaxMs (15 s when not given). */
export interface HeatPolling {
  /** Interval of the first Heat status poll; later polls back off. */
  heatPollMs: number;
  /** The longest interval between two Heat status polls (HEAT_POLL_MAX_MS); absent in operations started before it was a setting. */
  heatPollMaxMs?: number;
}
export { HEAT_POLL_MAX_MS_DEFAULT };

export type StackAction = 'CREATE' | 'UPDATE' | 'DELETE';

/**
 * Heat marks what was in progress FAILED when its engine restarts ("Engine
 * went down during stack CREATE"): nothing was wrong with the request, so the
 * step drives the stack on again instead of failing the operation.
 */
const ENGINE_WENT_DOWN = /Engine went down/i;
const MAX_REDRIVES = 3;

/** How a stack wait reads and drives the stack: its operation's own activities (an instance's stack, a cluster's). */
export interface StackCalls {
  status(): Promise<StackStatus | null>;
  /** Drives on a stack Heat failed when its engine went down; answers what to wait for then. */
  redrive(): Promise<'UPDATE' | 'DELETE'>;
  /** The failure when the stack is gone before the action ended. */
  gone: string;
  /** Asked (last) before a redrive: false where histories recorded before redrives existed must replay. */
  mayRedrive?: () => boolean;
}

/**
 * The one stack wait of every operation: polls until <action>_COMPLETE on
 * workflow timers; *_FAILED fails the step with Heat's reason, except a
 * failure left by an engine restart, which is driven on (at most 3 times).
 *
 * Given `sentAt` (workflow time before the request that started the action),
 * the intervals are paced by it (poll-schedule.ts pollDelay). A timer's
 * duration is not compared on replay, so older histories replay unchanged.
 */
export async function pollStack(stack: StackCalls, action: StackAction, poll: HeatPolling, sentAt?: number): Promise<void> {
  const maxInterval = poll.heatPollMaxMs ?? HEAT_POLL_MAX_MS_DEFAULT;
  let interval = poll.heatPollMs;
  let expected: StackAction = action;
  let redrives = 0;
  for (;;) {
    const s = await stack.status();
    if (!s) {
      if (action === 'DELETE') return;
      throw ApplicationFailure.nonRetryable(stack.gone, 'StackFailed');
    }
    if (s.status === `${expected}_COMPLETE`) return;
    if (s.status.endsWith('_FAILED')) {
      if (ENGINE_WENT_DOWN.test(s.reason ?? '') && redrives < MAX_REDRIVES && (stack.mayRedrive?.() ?? true)) {
        redrives++;
        // An interrupted create or update is finished by an update of the stack to its own template.
        expected = await stack.redrive();
        interval = poll.heatPollMs;
        sentAt = undefined;
        continue;
      }
      throw ApplicationFailure.nonRetryable(`stack ${s.name} ${s.status}: ${s.reason || 'no reason given'}`, 'StackFailed');
    }
    interval = pollDelay(interval, maxInterval, sentAt === undefined ? undefined : Date.now() - sentAt);
    await sleep(interval);
    interval = nextInterval(interval, maxInterval);
  }
}

/** Runs the request that starts a stack action and answers when it was sent, the `sentAt` of the wait that follows. */
export async function sent(request: () => Promise<unknown>): Promise<number> {
  const at = Date.now();
  await request();
  return at;
}

/** Polls the instance's stack until <action>_COMPLETE; *_FAILED fails the step with Heat's reason. */
export async function waitForStack(vnfInstanceId: string, action: StackAction, poll: HeatPolling, sentAt?: number): Promise<void> {
  await pollStack({
    status: () => stackPolls().stackStatus({ vnfInstanceId }),
    redrive: () => acts.redriveStack({ vnfInstanceId }),
    gone: `stack of VNF instance ${vnfInstanceId} is gone`,
    mayRedrive: () => patched('redrive-stack-after-heat-restart'),
  }, action, poll, sentAt);
}

/**
 * Makes the instance's stack exist and reach CREATE_COMPLETE. A failed stack
 * left by an earlier attempt is deleted and created again (so retry works);
 * a stack this call created and that then failed fails the step.
 */
export async function createStack(opOccId: string, vnfInstanceId: string, poll: HeatPolling): Promise<void> {
  let createdHere = false;
  let sentAt: number | undefined;
  for (;;) {
    // by the saved id only: a stack of the name whose id was never saved answers the create with a 409 (StackDriver.create)
    const s = await preludeStackRead().stackStatus({ vnfInstanceId, byId: true });
    if (!s || s.status === 'DELETE_COMPLETE') {
      sentAt = await sent(() => acts.createStack({ opOccId }));
      createdHere = true;
    } else if (s.status.endsWith('_FAILED') && !createdHere) {
      await deleteStack(vnfInstanceId, poll);
      continue;
    }
    await waitForStack(vnfInstanceId, 'CREATE', poll, sentAt);
    return;
  }
}

export async function deleteStack(vnfInstanceId: string, poll: HeatPolling): Promise<void> {
  if (await acts.deleteStack({ vnfInstanceId })) await waitForStack(vnfInstanceId, 'DELETE', poll);
}
