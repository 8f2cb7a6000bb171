/**
 * What the simulated cloud remembers, one record type per table. Records are
 * plain JSON and treated as immutable: a change is a put of a new object.
 * Field names follow the REST APIs where the record is shown as is.
 */

/** A timed change not finished yet (BUILD → ACTIVE, deleting → gone, ...), persisted so a restart resumes it. */
export interface Pending {
  op: string;
  /** Epoch ms when it completes. */
  due: number;
  /** Id of a 'hang' fault holding it; removing the fault releases it. */
  heldBy?: string;
  /** A 'fail' fault decided the outcome when the operation started. */
  failure?: { message: string; code: number };
  /** Operation arguments (e.g. the image of a rebuild, the flavor of a resize). */
  args?: Record<string, string | null>;
}

export interface FlavorRecord {
  id: string;
  name: string;
  vcpus: number;
  ram: number;
  disk: number;
  ephemeral: number;
  swap: number;
  rxtx_factor: number;
  is_public: boolean;
  description: string | null;
  extra_specs: Record<string, string>;
}

export interface ImageRecord {
  id: string;
  name: string | null;
  status: 'queued' | 'saving' | 'active' | 'killed' | 'deleted' | 'deactivated' | 'uploading' | 'importing';
  visibility: 'public' | 'private' | 'shared' | 'community';
  owner: string;
  protected: boolean;
  disk_format: string | null;
  container_format: string | null;
  min_ram: number;
  min_disk: number;
  size: number | null;
  virtual_size: number | null;
  checksum: string | null;
  os_hash_algo: string | null;
  os_hash_value: string | null;
  tags: string[];
  /** Additional properties (os_distro, os_version, hw_*...), shown at the top level of the image. */
  properties: Record<string, string>;
  created_at: string;
  updated_at: string;
}

export interface KeypairRecord {
  /** user_id + '/' + name: keypairs are per user. */
  id: string;
  name: string;
  user_id: string;
  public_key: string;
  fingerprint: string;
  type: 'ssh' | 'x509';
  created_at: string;
}

interface NeutronCommon {
  id: string;
  name: string;
  project_id: string;
  description: string;
  tags: string[];
  created_at: string;
  updated_at: string;
  revision_number: number;
}

export interface NetworkRecord extends NeutronCommon {
  admin_state_up: boolean;
  shared: boolean;
  'router:external': boolean;
  status: 'ACTIVE' | 'DOWN' | 'BUILD' | 'ERROR';
  mtu: number;
  port_security_enabled: boolean;
  availability_zone_hints: string[];
  dns_domain: string;
  /** provider:* and other value_specs keys, shown as given. */
  extra: Record<string, unknown>;
}

export interface AllocationPool {
  start: string;
  end: string;
}

export interface SubnetRecord extends NeutronCommon {
  network_id: string;
  ip_version: 4 | 6;
  cidr: string;
  gateway_ip: string | null;
  allocation_pools: AllocationPool[];
  enable_dhcp: boolean;
  dns_nameservers: string[];
  host_routes: { destination: string; nexthop: string }[];
  ipv6_ra_mode: string | null;
  ipv6_address_mode: string | null;
  subnetpool_id: string | null;
  segment_id: string | null;
}

export interface FixedIp {
  subnet_id: string;
  ip_address: string;
}

export interface PortRecord extends NeutronCommon {
  network_id: string;
  mac_address: string;
  fixed_ips: FixedIp[];
  device_id: string;
  device_owner: string;
  status: 'ACTIVE' | 'DOWN' | 'BUILD' | 'ERROR';
  admin_state_up: boolean;
  security_groups: string[];
  port_security_enabled: boolean;
  allowed_address_pairs: { ip_address: string; mac_address: string }[];
  'binding:vnic_type': string;
  'binding:host_id': string;
  'binding:profile': Record<string, unknown>;
  dns_name: string;
  extra: Record<string, unknown>;
}

export interface SecurityGroupRecord extends NeutronCommon {
  stateful: boolean;
}

export interface SecurityGroupRuleRecord {
  id: string;
  project_id: string;
  security_group_id: string;
  direction: 'ingress' | 'egress';
  ethertype: 'IPv4' | 'IPv6';
  protocol: string | null;
  port_range_min: number | null;
  port_range_max: number | null;
  remote_ip_prefix: string | null;
  remote_group_id: string | null;
  description: string;
  created_at: string;
  updated_at: string;
  revision_number: number;
}

export interface ServerInterface {
  port_id: string;
  /** Nova made the port (a `{uuid}` network entry): it is deleted with the server, not just unbound. */
  created: boolean;
}

export interface ServerVolume {
  volume_id: string;
  attachment_id: string;
  device: string;
  boot_index: number | null;
  delete_on_termination: boolean;
}

export interface ServerFault {
  code: number;
  message: string;
  details: string;
  created: string;
}

export interface ServerRecord {
  id: string;
  name: string;
  project_id: string;
  user_id: string;
  /** '' when booted from a volume. */
  image_id: string;
  flavor_id: string;
  /** Flavor before a resize, until it is confirmed or reverted. */
  old_flavor_id: string | null;
  key_name: string | null;
  metadata: Record<string, string>;
  tags: string[];
  /** base64, as given (cloud-init reads it). */
  user_data: string | null;
  admin_pass: string | null;
  access_ipv4: string;
  access_ipv6: string;
  availability_zone: string;
  config_drive: string;
  description: string | null;
  security_groups: string[];
  status: string;
  vm_state: string;
  task_state: string | null;
  power_state: number;
  fault: ServerFault | null;
  interfaces: ServerInterface[];
  volumes: ServerVolume[];
  /** Counts rebuilds: each one is a new disk, so a new simulated host. */
  generation: number;
  /** The compute host it was scheduled to (compute/scheduler.ts); '' when none was valid; absent in records older than the hosts. */
  host?: string;
  /** OpenSSH private host key of the current disk. */
  ssh_host_key: string;
  launched_at: string | null;
  created: string;
  updated: string;
  pending: Pending | null;
}

/** A Nova server group: the scheduler places its members by its policy (compute/scheduler.ts). */
export interface ServerGroupRecord {
  id: string;
  name: string;
  project_id: string;
  user_id: string;
  policy: 'affinity' | 'anti-affinity' | 'soft-affinity' | 'soft-anti-affinity';
  rules: Record<string, number>;
  members: string[];
}

export interface VolumeTypeRecord {
  id: string;
  name: string;
  description: string | null;
  is_public: boolean;
  extra_specs: Record<string, string>;
}

export interface VolumeAttachment {
  id: string;
  attachment_id: string;
  volume_id: string;
  server_id: string;
  host_name: string;
  device: string;
  attached_at: string;
}

export interface VolumeRecord {
  id: string;
  name: string | null;
  description: string | null;
  project_id: string;
  user_id: string;
  size: number;
  status: string;
  availability_zone: string;
  /** Volume type id. */
  volume_type: string;
  bootable: boolean;
  image_id: string | null;
  metadata: Record<string, string>;
  attachments: VolumeAttachment[];
  multiattach: boolean;
  created_at: string;
  updated_at: string;
  pending: Pending | null;
}

export interface Records {
  flavors: FlavorRecord;
  images: ImageRecord;
  keypairs: KeypairRecord;
  networks: NetworkRecord;
  subnets: SubnetRecord;
  ports: PortRecord;
  security_groups: SecurityGroupRecord;
  security_group_rules: SecurityGroupRuleRecord;
  servers: ServerRecord;
  server_groups: ServerGroupRecord;
  volume_types: VolumeTypeRecord;
  volumes: VolumeRecord;
}

export type Kind = keyof Records;

export const KINDS: Kind[] = ['flavors', 'images', 'keypairs', 'networks', 'subnets', 'ports', 'security_groups', 'security_group_rules', 'servers', 'server_groups', 'volume_types', 'volumes'];
