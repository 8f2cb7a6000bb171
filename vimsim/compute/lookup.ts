/** Finding Nova records the caller may see, with Nova's errors. */
import type { RequestContext } from '../auth/context';
import { actingUserId } from '../auth/context';
import { conflict, notFound } from '../http/errors';
import type { FlavorRecord, KeypairRecord, ServerRecord } from '../store/records';
import type { Store } from '../store/store';

export function visibleServer(store: Store, ctx: RequestContext, id: string): ServerRecord {
  const s = store.get('servers', id);
  if (!s || (s.project_id !== ctx.projectId && !ctx.isAdmin)) throw notFound(`Instance ${id} could not be found.`);
  return s;
}

export function flavorById(store: Store, id: string): FlavorRecord {
  const f = store.get('flavors', id);
  if (!f) throw notFound(`Flavor ${id} could not be found.`);
  return f;
}

export function keypairId(userId: string, name: string): string {
  return `${userId}/${name}`;
}

export function ownKeypair(store: Store, ctx: RequestContext, name: string, userId = actingUserId(ctx)): KeypairRecord | undefined {
  return store.get('keypairs', keypairId(userId, name));
}

/** Nova's InstanceInvalidState: an action the server's current state does not allow. */
export function invalidState(s: ServerRecord, action: string): Error {
  const [attr, state] = s.task_state ? ['task_state', s.task_state] : ['vm_state', s.vm_state];
  return conflict(`Cannot '${action}' instance ${s.id} while it is in ${attr} ${state}`);
}
