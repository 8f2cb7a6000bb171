/**
 * Every project has a security group named `default`, made the first time
 * the project needs one (Neutron does it on the project's first request):
 * all egress allowed, ingress only from members of the group.
 */
import type { SecurityGroupRecord, SecurityGroupRuleRecord } from '../store/records';
import type { Store } from '../store/store';
import { newUuid } from '../util/ids';
import { isoSeconds } from '../util/time';

export function defaultGroup(store: Store, projectId: string): SecurityGroupRecord {
  const existing = store.list('security_groups').find((g) => g.project_id === projectId && g.name === 'default');
  if (existing) return existing;
  const now = isoSeconds();
  const group: SecurityGroupRecord = {
    id: newUuid(), name: 'default', project_id: projectId, description: 'Default security group', stateful: true, tags: [],
    created_at: now, updated_at: now, revision_number: 1,
  };
  const rule = (direction: 'ingress' | 'egress', ethertype: 'IPv4' | 'IPv6'): SecurityGroupRuleRecord => ({
    id: newUuid(), project_id: projectId, security_group_id: group.id, direction, ethertype, protocol: null, port_range_min: null,
    port_range_max: null, remote_ip_prefix: null, remote_group_id: direction === 'ingress' ? group.id : null, description: '',
    created_at: now, updated_at: now, revision_number: 0,
  });
  store.tx(() => {
    store.put('security_groups', group);
    for (const r of [rule('egress', 'IPv4'), rule('egress', 'IPv6'), rule('ingress', 'IPv4'), rule('ingress', 'IPv6')]) store.put('security_group_rules', r);
  });
  return group;
}
