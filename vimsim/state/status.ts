/** Status changes of stacks and resources; each one leaves an event, as Heat's do. */
import { newUuid } from '../util/ids';
import type { ResourceAction, ResourceRecord, StackAction, StackRecord, Status } from './model';

/** Recorded on the stack until the next save moves it into the store's event log. */
function pushEvent(stack: StackRecord, event: StackRecord['events'][number]): void {
  stack.events.push(event);
}

export function setStackStatus(stack: StackRecord, action: StackAction, status: Status, reason: string, now: string): void {
  stack.action = action;
  stack.status = status;
  stack.reason = reason;
  pushEvent(stack, {
    id: newUuid(),
    time: now,
    resourceName: stack.name,
    physicalId: stack.id,
    resourceType: 'OS::Heat::Stack',
    action,
    status,
    reason,
  });
}

export function setResourceStatus(
  stack: StackRecord,
  res: ResourceRecord,
  action: ResourceAction,
  status: Status,
  reason: string,
  now: string,
): void {
  res.action = action;
  res.status = status;
  res.reason = reason;
  res.updatedAt = now;
  pushEvent(stack, {
    id: newUuid(),
    time: now,
    resourceName: res.name,
    physicalId: res.physicalId,
    resourceType: res.type,
    action,
    status,
    reason,
  });
}

/** Heat's stock reasons. */
export const reasons = {
  stackStarted: (action: StackAction) => `Stack ${action} started`,
  stackCompleted: (action: StackAction) => `Stack ${action} completed successfully`,
  stackFailed: (action: StackAction, why: string) => `Resource ${action} failed: ${why}`,
  cancelled: (action: StackAction) => `Stack ${action} cancelled`,
  resourceStarted: 'state changed',
  resourceCompleted: 'state changed',
};
