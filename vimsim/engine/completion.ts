/**
 * Ends an operation on a stack tree: every *_IN_PROGRESS resource and stack
 * becomes *_COMPLETE, or *_FAILED along the path of a failing resource. Stacks
 * are finished deepest first so a parent sees how its nested stacks ended.
 */
import type { ResourceRecord, SimState, StackRecord } from '../state/model';
import { stacksOfTree } from '../state/stacks';
import { reasons, setResourceStatus, setStackStatus } from '../state/status';
import { behaviourOf } from '../hot/types';

export type Outcome =
  /** Normal end; resources with a pending failure still fail. */
  | { kind: 'complete' }
  /** A 'fail' fault: one resource fails with the reason. */
  | { kind: 'fail'; reason: string }
  /** Cancel or timeout: everything still in progress fails with the reason. */
  | { kind: 'abort'; reason: string };

export function finishOperation(state: SimState, root: StackRecord, outcome: Outcome, now: string): void {
  const action = root.pending?.action ?? root.action;
  root.pending = undefined;
  const tree = stacksOfTree(state, root.id);

  if (outcome.kind === 'fail') {
    const victim = pickVictim(tree);
    if (victim) victim.pendingFailure = outcome.reason;
  }
  const failing = outcome.kind !== 'complete' || tree.some((s) => s.resources.some((r) => r.pendingFailure));
  /** Failure reason of each nested stack that failed, by stack id (the innermost reason, not re-wrapped). */
  const failedStacks = new Map<string, string>();

  for (const stack of tree) {
    let failure: string | undefined;
    for (const res of [...stack.resources]) {
      if (res.status !== 'IN_PROGRESS') continue;
      const why = outcome.kind === 'abort'
        ? outcome.reason
        : res.pendingFailure ?? (res.nestedStackId ? failedStacks.get(res.nestedStackId) : undefined);
      if (why !== undefined) {
        res.pendingFailure = undefined;
        setResourceStatus(stack, res, res.action, 'FAILED', why, now);
        failure ??= why;
      } else if (res.action === 'DELETE' && !(action === 'DELETE' && failing)) {
        removeResource(state, stack, res, now);
      } else {
        setResourceStatus(stack, res, res.action, 'COMPLETE', reasons.resourceCompleted, now);
      }
    }
    if (stack.status !== 'IN_PROGRESS') continue;
    if (failure === undefined && stack.id === root.id && outcome.kind !== 'complete') failure = outcome.reason;
    if (failure !== undefined) {
      failedStacks.set(stack.id, failure);
      const reason = outcome.kind === 'abort' ? outcome.reason : reasons.stackFailed(stack.action, failure);
      setStackStatus(stack, stack.action, 'FAILED', reason, now);
    } else {
      setStackStatus(stack, stack.action, 'COMPLETE', reasons.stackCompleted(stack.action), now);
      if (stack.action === 'DELETE') stack.deletedAt = now;
    }
  }
}

function removeResource(state: SimState, stack: StackRecord, res: ResourceRecord, now: string): void {
  setResourceStatus(stack, res, 'DELETE', 'COMPLETE', reasons.resourceCompleted, now);
  if (!res.nestedStackId) behaviourOf(res).release?.(state, res);
  stack.resources = stack.resources.filter((r) => r !== res);
}

/**
 * The resource an injected failure hits: a server doing the stack's operation
 * if there is one (that is what usually fails in real clouds), else any leaf
 * resource in progress, else anything in progress.
 */
function pickVictim(tree: StackRecord[]): ResourceRecord | undefined {
  const inProgress = [...tree].reverse().flatMap((s) => s.resources.filter((r) => r.status === 'IN_PROGRESS'));
  const leaves = inProgress.filter((r) => !r.nestedStackId && r.action !== 'DELETE');
  return (
    leaves.find((r) => r.type === 'OS::Nova::Server') ??
    leaves[0] ??
    inProgress.find((r) => !r.nestedStackId) ??
    inProgress[0]
  );
}
