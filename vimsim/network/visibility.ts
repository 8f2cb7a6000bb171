/**
 * Which Neutron records a caller sees: admins see every project's; others
 * their own project's, plus networks that are shared or external (and the
 * subnets of shared networks), as Neutron's policy has it.
 */
import type { RequestContext } from '../auth/context';
import type { NetworkRecord, SubnetRecord } from '../store/records';
import type { Store } from '../store/store';

export function ownsOrAdmin(ctx: RequestContext, projectId: string): boolean {
  return ctx.isAdmin || ctx.projectId === projectId;
}

export function networkVisible(ctx: RequestContext, n: NetworkRecord): boolean {
  return ownsOrAdmin(ctx, n.project_id) || n.shared || n['router:external'];
}

export function subnetVisible(ctx: RequestContext, s: SubnetRecord, store: Store): boolean {
  if (ownsOrAdmin(ctx, s.project_id)) return true;
  const net = store.get('networks', s.network_id);
  return net !== undefined && net.shared;
}

/** The project a new record belongs to: the caller's, or (admins only) the one the body names. */
export function owningProject(ctx: RequestContext, body: { project_id?: string; tenant_id?: string }): string {
  const asked = body.project_id ?? body.tenant_id;
  return asked && ctx.isAdmin ? asked : ctx.projectId;
}
