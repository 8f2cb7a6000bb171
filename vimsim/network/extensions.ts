/** GET /v2.0/extensions: what this Neutron offers (Heat checks aliases such as security-group and router). */

const ALIASES: [string, string, string][] = [
  ['allowed-address-pairs', 'Allowed Address Pairs', 'Provides allowed address pairs'],
  ['availability_zone', 'Availability Zone', 'The availability zone extension.'],
  ['binding', 'Port Binding', 'Expose port bindings of a virtual port to external application'],
  ['dns-integration', 'DNS Integration', 'Provides integration with DNS.'],
  ['external-net', 'Neutron external network', 'Adds external network attribute to network resource.'],
  ['fields', 'Fields', 'Fields of resources can be selected.'],
  ['ip-substring-filtering', 'IP address substring filtering', 'Provides IP address substring filtering when listing ports'],
  ['net-mtu', 'Network MTU', 'Provides MTU attribute for a network resource.'],
  ['network_availability_zone', 'Network Availability Zone', 'Availability zone support for network.'],
  ['pagination', 'Pagination support', 'Extension that indicates that pagination is enabled.'],
  ['port-security', 'Port Security', 'Provides port security'],
  ['project-id', 'project_id field enabled', 'Extension that indicates that project_id field is enabled.'],
  ['provider', 'Provider Network', 'Expose mapping of virtual networks to physical networks'],
  ['router', 'Neutron L3 Router', 'Router abstraction for basic L3 forwarding between L2 Neutron networks and access to external networks via a NAT gateway.'],
  ['security-group', 'security-group', 'The security groups extension.'],
  ['sorting', 'Sorting support', 'Extension that indicates that sorting is enabled.'],
  ['standard-attr-description', 'standard-attr-description', 'Extension to add descriptions to standard attributes'],
  ['standard-attr-revisions', 'Resource revision numbers', 'This extension will display the revision number of neutron resources.'],
  ['standard-attr-tag', 'Tag support for resources with standard attribute: subnet, trunk, network_segment_range, router, network, policy, subnetpool, port, security_group, floatingip', 'Enables to set tag on resources with standard attribute.'],
  ['standard-attr-timestamp', 'Resource timestamps', 'Adds created_at and updated_at fields to all Neutron resources that have Neutron standard attributes.'],
];

export function extensionsBody() {
  return {
    extensions: ALIASES.map(([alias, name, description]) => ({ alias, name, description, updated: '2023-01-01T00:00:00-00:00', links: [] })),
  };
}

export function extensionBody(alias: string) {
  return extensionsBody().extensions.find((e) => e.alias === alias);
}
