/** Finding Neutron records the caller may see, with Neutron's NotFound errors. */
import type { RequestContext } from '../auth/context';
import { notFound } from '../http/errors';
import type { PortRecord, SecurityGroupRecord, SecurityGroupRuleRecord, SubnetRecord } from '../store/records';
import type { Store } from '../store/store';
import { ownsOrAdmin, subnetVisible } from './visibility';

export function visibleSubnet(store: Store, ctx: RequestContext, id: string): SubnetRecord {
  const s = store.get('subnets', id);
  if (!s || !subnetVisible(ctx, s, store)) throw notFound(`Subnet ${id} could not be found.`, 'SubnetNotFound');
  return s;
}

export function visiblePort(store: Store, ctx: RequestContext, id: string): PortRecord {
  const p = store.get('ports', id);
  if (!p || !ownsOrAdmin(ctx, p.project_id)) throw notFound(`Port ${id} could not be found.`, 'PortNotFound');
  return p;
}

export function visibleGroup(store: Store, ctx: RequestContext, id: string): SecurityGroupRecord {
  const g = store.get('security_groups', id);
  if (!g || !ownsOrAdmin(ctx, g.project_id)) throw notFound(`Security group ${id} does not exist`, 'SecurityGroupNotFound');
  return g;
}

export function visibleRule(store: Store, ctx: RequestContext, id: string): SecurityGroupRuleRecord {
  const r = store.get('security_group_rules', id);
  if (!r || !ownsOrAdmin(ctx, r.project_id)) throw notFound(`Security group rule ${id} does not exist`, 'SecurityGroupRuleNotFound');
  return r;
}
