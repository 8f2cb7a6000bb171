/**
 * Request bodies of the Neutron API. Attributes it does not know are a 400
 * ("Unrecognized attribute(s)"), like Neutron's; extension attributes with a
 * colon (provider:*, binding:*) are kept as given.
 */
import { z } from 'zod';
import { badRequest } from '../http/errors';

const name = z.string().max(255);
const description = z.string().max(255);
const uuidLike = z.string().min(1).max(64);
const ipv4 = z.string().regex(/^\d{1,3}(\.\d{1,3}){3}$/, 'not a valid IPv4 address');

export const FixedIpSpec = z.object({ subnet_id: uuidLike.optional(), ip_address: ipv4.optional() }).strict();

const common = {
  name: name.optional(),
  description: description.optional(),
  project_id: uuidLike.optional(),
  tenant_id: uuidLike.optional(),
  tags: z.array(z.string().max(255)).max(100).optional(),
};

export const NetworkCreate = z.looseObject({
  ...common,
  admin_state_up: z.boolean().optional(),
  shared: z.boolean().optional(),
  'router:external': z.boolean().optional(),
  mtu: z.number().int().min(68).max(9216).optional(),
  port_security_enabled: z.boolean().optional(),
  availability_zone_hints: z.array(z.string().max(255)).max(10).optional(),
  dns_domain: z.string().max(255).optional(),
  qos_policy_id: uuidLike.nullable().optional(),
  is_default: z.boolean().optional(),
});
export const NetworkUpdate = NetworkCreate.omit({ project_id: true, tenant_id: true });

const pool = z.object({ start: ipv4, end: ipv4 }).strict();
const route = z.object({ destination: z.string().max(64), nexthop: ipv4 }).strict();

export const SubnetCreate = z.looseObject({
  ...common,
  network_id: uuidLike,
  ip_version: z.union([z.literal(4), z.literal(6)]).default(4),
  cidr: z.string().max(64).optional(),
  gateway_ip: ipv4.nullable().optional(),
  allocation_pools: z.array(pool).max(64).optional(),
  enable_dhcp: z.boolean().optional(),
  dns_nameservers: z.array(z.string().max(64)).max(16).optional(),
  host_routes: z.array(route).max(64).optional(),
  ipv6_ra_mode: z.string().nullable().optional(),
  ipv6_address_mode: z.string().nullable().optional(),
  subnetpool_id: uuidLike.nullable().optional(),
  prefixlen: z.number().int().optional(),
  segment_id: uuidLike.nullable().optional(),
  service_types: z.array(z.string()).optional(),
  use_default_subnetpool: z.boolean().optional(),
  dns_publish_fixed_ip: z.boolean().optional(),
});
export const SubnetUpdate = z.looseObject({
  name: name.optional(),
  description: description.optional(),
  gateway_ip: ipv4.nullable().optional(),
  allocation_pools: z.array(pool).max(64).optional(),
  enable_dhcp: z.boolean().optional(),
  dns_nameservers: z.array(z.string().max(64)).max(16).optional(),
  host_routes: z.array(route).max(64).optional(),
  tags: z.array(z.string().max(255)).max(100).optional(),
});

const addressPair = z.object({ ip_address: z.string().max(64), mac_address: z.string().max(32).optional() }).strict();

export const PortCreate = z.looseObject({
  ...common,
  network_id: uuidLike,
  admin_state_up: z.boolean().optional(),
  mac_address: z.string().regex(/^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/, 'not a valid MAC address').optional(),
  fixed_ips: z.array(FixedIpSpec).max(64).optional(),
  device_id: z.string().max(255).optional(),
  device_owner: z.string().max(255).optional(),
  security_groups: z.array(uuidLike).max(64).optional(),
  port_security_enabled: z.boolean().optional(),
  allowed_address_pairs: z.array(addressPair).max(64).optional(),
  'binding:vnic_type': z.enum(['normal', 'direct', 'macvtap', 'baremetal', 'direct-physical', 'virtio-forwarder', 'smart-nic', 'remote-managed', 'vdpa']).optional(),
  'binding:host_id': z.string().max(255).optional(),
  'binding:profile': z.record(z.string(), z.unknown()).optional(),
  dns_name: z.string().max(255).optional(),
  qos_policy_id: uuidLike.nullable().optional(),
  propagate_uplink_status: z.boolean().optional(),
  extra_dhcp_opts: z.array(z.record(z.string(), z.unknown())).max(64).optional(),
  numa_affinity_policy: z.string().nullable().optional(),
});
export const PortUpdate = PortCreate.omit({ network_id: true, project_id: true, tenant_id: true, mac_address: true });
export type PortCreateBody = z.infer<typeof PortCreate>;

export const SecurityGroupCreate = z.object({ ...common, stateful: z.boolean().optional() }).strict();
export const SecurityGroupUpdate = z.object({ name: name.optional(), description: description.optional(), stateful: z.boolean().optional() }).strict();

/** Neutron converts "22" to 22 for port ranges. */
const portNumber = z.union([z.number().int().min(0).max(65535), z.string().regex(/^\d{1,5}$/).transform(Number).pipe(z.number().max(65535))]);

export const RuleCreate = z
  .object({
    security_group_id: uuidLike,
    direction: z.enum(['ingress', 'egress']),
    ethertype: z.enum(['IPv4', 'IPv6']).default('IPv4'),
    protocol: z.union([z.string().max(32), z.number().int().min(0).max(255)]).nullable().optional(),
    port_range_min: portNumber.nullable().optional(),
    port_range_max: portNumber.nullable().optional(),
    remote_ip_prefix: z.string().max(64).nullable().optional(),
    remote_group_id: uuidLike.nullable().optional(),
    remote_address_group_id: uuidLike.nullable().optional(),
    description: description.optional(),
    project_id: uuidLike.optional(),
    tenant_id: uuidLike.optional(),
  })
  .strict();

export const TagsBody = z.object({ tags: z.array(z.string().min(1).max(255)).max(100) }).strict();

/** Unknown plain attributes are refused; extension attributes (a:b) are returned to be stored as given. */
export function extensionAttributes(body: Record<string, unknown>, known: z.ZodObject): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    if (Object.hasOwn(known.shape, k)) continue;
    if (k.includes(':')) extra[k] = v;
    else unknown.push(k);
  }
  if (unknown.length > 0) throw badRequest(`Unrecognized attribute(s) '${unknown.map((u) => u.slice(0, 64)).join(', ')}'`);
  return extra;
}

/**
 * The items of a create body: {"port": {...}} or, in bulk, {"ports": [...]}
 * (neutronclient sends security group rules in bulk). `bulk` says which it was.
 */
export function createItems(resource: string, plural: string, body: unknown): { items: unknown[]; bulk: boolean } {
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && Array.isArray((body as Record<string, unknown>)[plural])) {
    const items = (body as Record<string, unknown[]>)[plural];
    if (items.length === 0 || items.length > 1000) throw badRequest(`Invalid input: ${plural} must hold 1 to 1000 items`);
    return { items, bulk: true };
  }
  return { items: [envelope(resource, body)], bulk: false };
}

/** {"<resource>": {...}}: the one key every Neutron body has. */
export function envelope(resource: string, body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !(resource in body)) {
    throw badRequest(`Resource body required: expected a JSON object with key '${resource}'`);
  }
  return (body as Record<string, unknown>)[resource];
}

/** The attributes of a parsed update body that the schema knows and the client gave. */
export function knownChanges(spec: Record<string, unknown>, known: z.ZodObject, except: string[] = []): Record<string, unknown> {
  return Object.fromEntries(Object.entries(spec).filter(([k, v]) => Object.hasOwn(known.shape, k) && !except.includes(k) && v !== undefined));
}
