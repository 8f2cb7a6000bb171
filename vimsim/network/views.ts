/** Neutron's representation of each record, as GET /v2.0/<collection>/<id> shows it. */
import type { NetworkRecord, PortRecord, SecurityGroupRecord, SecurityGroupRuleRecord, SubnetRecord } from '../store/records';
import type { Store } from '../store/store';

const owner = (projectId: string) => ({ tenant_id: projectId, project_id: projectId });

export function networkView(n: NetworkRecord, store: Store) {
  return {
    id: n.id,
    name: n.name,
    ...owner(n.project_id),
    admin_state_up: n.admin_state_up,
    mtu: n.mtu,
    status: n.status,
    subnets: store.list('subnets').filter((s) => s.network_id === n.id).map((s) => s.id),
    shared: n.shared,
    availability_zone_hints: n.availability_zone_hints,
    availability_zones: ['nova'],
    ipv4_address_scope: null,
    ipv6_address_scope: null,
    'router:external': n['router:external'],
    description: n.description,
    port_security_enabled: n.port_security_enabled,
    qos_policy_id: null,
    l2_adjacency: true,
    is_default: false,
    dns_domain: n.dns_domain,
    tags: n.tags,
    created_at: n.created_at,
    updated_at: n.updated_at,
    revision_number: n.revision_number,
    ...n.extra,
  };
}

export function subnetView(s: SubnetRecord) {
  return {
    id: s.id,
    name: s.name,
    ...owner(s.project_id),
    network_id: s.network_id,
    ip_version: s.ip_version,
    subnetpool_id: s.subnetpool_id,
    enable_dhcp: s.enable_dhcp,
    ipv6_ra_mode: s.ipv6_ra_mode,
    ipv6_address_mode: s.ipv6_address_mode,
    gateway_ip: s.gateway_ip,
    cidr: s.cidr,
    allocation_pools: s.allocation_pools,
    host_routes: s.host_routes,
    dns_nameservers: s.dns_nameservers,
    description: s.description,
    service_types: [],
    segment_id: s.segment_id,
    dns_publish_fixed_ip: false,
    tags: s.tags,
    created_at: s.created_at,
    updated_at: s.updated_at,
    revision_number: s.revision_number,
  };
}

export function portView(p: PortRecord) {
  const bound = p['binding:host_id'] !== '';
  return {
    id: p.id,
    name: p.name,
    network_id: p.network_id,
    ...owner(p.project_id),
    mac_address: p.mac_address,
    admin_state_up: p.admin_state_up,
    status: p.status,
    device_id: p.device_id,
    device_owner: p.device_owner,
    fixed_ips: p.fixed_ips,
    allowed_address_pairs: p.allowed_address_pairs,
    extra_dhcp_opts: [],
    security_groups: p.security_groups,
    description: p.description,
    'binding:vnic_type': p['binding:vnic_type'],
    'binding:host_id': p['binding:host_id'],
    'binding:profile': p['binding:profile'],
    'binding:vif_type': bound ? 'ovs' : 'unbound',
    'binding:vif_details': bound ? { port_filter: true, connectivity: 'l2', bridge_name: 'br-int', datapath_type: 'system' } : {},
    port_security_enabled: p.port_security_enabled,
    qos_policy_id: null,
    qos_network_policy_id: null,
    propagate_uplink_status: false,
    ip_allocation: 'immediate',
    resource_request: null,
    dns_name: p.dns_name,
    dns_assignment: p.fixed_ips.map((f) => ({ ip_address: f.ip_address, hostname: p.dns_name || `host-${f.ip_address.replace(/\./g, '-')}`, fqdn: `${p.dns_name || `host-${f.ip_address.replace(/\./g, '-')}`}.openstacklocal.` })),
    tags: p.tags,
    created_at: p.created_at,
    updated_at: p.updated_at,
    revision_number: p.revision_number,
    ...p.extra,
  };
}

export function ruleView(r: SecurityGroupRuleRecord) {
  return {
    id: r.id,
    ...owner(r.project_id),
    security_group_id: r.security_group_id,
    direction: r.direction,
    ethertype: r.ethertype,
    protocol: r.protocol,
    port_range_min: r.port_range_min,
    port_range_max: r.port_range_max,
    remote_ip_prefix: r.remote_ip_prefix,
    remote_group_id: r.remote_group_id,
    remote_address_group_id: null,
    normalized_cidr: r.remote_ip_prefix,
    description: r.description,
    tags: [],
    created_at: r.created_at,
    updated_at: r.updated_at,
    revision_number: r.revision_number,
  };
}

export function securityGroupView(g: SecurityGroupRecord, store: Store) {
  return {
    id: g.id,
    name: g.name,
    ...owner(g.project_id),
    description: g.description,
    stateful: g.stateful,
    shared: false,
    security_group_rules: store.list('security_group_rules').filter((r) => r.security_group_id === g.id).map(ruleView),
    tags: g.tags,
    created_at: g.created_at,
    updated_at: g.updated_at,
    revision_number: g.revision_number,
  };
}
