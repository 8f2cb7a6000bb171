/**
 * What the simulated cloud holds before anyone uses it, like a fresh devstack:
 * flavors m1.tiny..m1.xlarge (ids "1".."5"), Cinder's default volume type, public images (the ones the
 * product's and Tacker's sample packages name, all an Ubuntu 20.04 underneath
 * unless said otherwise), and two shared external networks on loopback
 * ranges so every server can answer SSH locally. Ids are stable: parameter
 * files name them. Applied at every start; only what is missing is added.
 */
import { stableUuid } from '../util/ids';
import { isoSeconds } from '../util/time';
import type { FlavorRecord, ImageRecord, NetworkRecord, SubnetRecord, VolumeTypeRecord } from './records';
import type { Store } from './store';

/** Project of the seeded networks and images until the admin project's id is known (see adoptSeed). */
export const UNRESOLVED_OWNER = '';

const flavor = (id: string, name: string, vcpus: number, ram: number, disk: number): FlavorRecord => ({
  id, name, vcpus, ram, disk, ephemeral: 0, swap: 0, rxtx_factor: 1, is_public: true, description: null, extra_specs: {},
});

export const SEED_FLAVORS: FlavorRecord[] = [
  flavor('1', 'm1.tiny', 1, 512, 1),
  flavor('2', 'm1.small', 1, 2048, 20),
  flavor('3', 'm1.medium', 2, 4096, 40),
  flavor('4', 'm1.large', 4, 8192, 80),
  flavor('5', 'm1.xlarge', 8, 16384, 160),
];

/** Cinder's default volume type. */
export const DEFAULT_VOLUME_TYPE: VolumeTypeRecord = {
  id: 'b7f3c5a2-6f0a-4c4e-9a57-0f5e8c1d2e3f', name: '__DEFAULT__', description: 'Default Volume Type', is_public: true, extra_specs: {},
};

const UBUNTU_2004 = { os_distro: 'ubuntu', os_version: '20.04' };

/** name → properties. */
const IMAGES: [string, Record<string, string>][] = [
  ['ubuntu-20.04', UBUNTU_2004],
  ['ubuntu-22.04', { os_distro: 'ubuntu', os_version: '22.04' }],
  ['cirros-0.5.2-x86_64-disk', { os_distro: 'cirros', os_version: '0.5.2' }],
  ['one_vdu_vnf-image', UBUNTU_2004],
  ['two_vdu_vnf-image', UBUNTU_2004],
  ['two_vdu_vnf-image-v2', UBUNTU_2004],
  ['VDU1-image', UBUNTU_2004],
  ['VDU2-VirtualStorage-image', UBUNTU_2004],
  ['Image for Private registry', UBUNTU_2004],
  ['Image for masterNode kubernetes', UBUNTU_2004],
  ['Image for workerNode kubernetes', UBUNTU_2004],
  ['Image for masterNode HA kubernetes', UBUNTU_2004],
  ['Image for workerNode HA kubernetes', UBUNTU_2004],
];

export function seedImageId(name: string): string {
  return stableUuid(`vimsim-image:${name}`);
}

function image(name: string, properties: Record<string, string>, now: string): ImageRecord {
  const hash = stableUuid(`vimsim-image-data:${name}`).replace(/-/g, '');
  return {
    id: seedImageId(name),
    name,
    status: 'active',
    visibility: 'public',
    owner: UNRESOLVED_OWNER,
    protected: false,
    disk_format: 'qcow2',
    container_format: 'bare',
    min_ram: 0,
    min_disk: 0,
    size: name.startsWith('cirros') ? 16338944 : 637927424,
    virtual_size: null,
    checksum: hash,
    os_hash_algo: 'sha512',
    os_hash_value: hash.repeat(4),
    tags: [],
    properties: { ...properties, hw_disk_bus: 'virtio' },
    created_at: now,
    updated_at: now,
  };
}

export const PUBLIC_NETWORK_ID = 'f0c82461-36b5-4d86-8322-b0bc19cda65f';
export const PRIVATE_NETWORK_ID = '71a3fbd1-f31e-4c2c-b0e2-26267d64a9ee';

const NETWORKS: { id: string; name: string; subnet: string; cidr: string; start: string; end: string; gateway: string }[] = [
  { id: PUBLIC_NETWORK_ID, name: 'public', subnet: 'public-subnet', cidr: '127.20.0.0/16', start: '127.20.0.2', end: '127.20.255.254', gateway: '127.20.0.1' },
  { id: PRIVATE_NETWORK_ID, name: 'private', subnet: 'private-subnet', cidr: '127.21.0.0/16', start: '127.21.0.2', end: '127.21.255.254', gateway: '127.21.0.1' },
];

function network(n: (typeof NETWORKS)[number], now: string): NetworkRecord {
  return {
    id: n.id, name: n.name, project_id: UNRESOLVED_OWNER, description: '', tags: [], created_at: now, updated_at: now, revision_number: 1,
    admin_state_up: true, shared: true, 'router:external': true, status: 'ACTIVE', mtu: 1500, port_security_enabled: true,
    availability_zone_hints: [], dns_domain: '', extra: { 'provider:network_type': 'flat', 'provider:physical_network': n.name, 'provider:segmentation_id': null },
  };
}

/** The subnet, its allocation pool starting at the third octet `block` (127.20.<block>.2): see applySeed. */
function subnet(n: (typeof NETWORKS)[number], now: string, block: number): SubnetRecord {
  const start = block ? n.start.replace(/\.0\.2$/, `.${block}.2`) : n.start;
  return {
    id: stableUuid(`vimsim-subnet:${n.subnet}`), name: n.subnet, project_id: UNRESOLVED_OWNER, description: '', tags: [], created_at: now,
    updated_at: now, revision_number: 0, network_id: n.id, ip_version: 4, cidr: n.cidr, gateway_ip: n.gateway,
    allocation_pools: [{ start, end: n.end }], enable_dhcp: true, dns_nameservers: [], host_routes: [],
    ipv6_ra_mode: null, ipv6_address_mode: null, subnetpool_id: null, segment_id: null,
  };
}

/**
 * Adds whatever of the seed is missing (a deleted seed image or network comes back at the next start).
 * `addressBlock` moves the start of the seeded subnets' allocation pools to 127.2x.<block>.2: simulators
 * running side by side on one machine (each with its own control planes on fixed ports of its servers'
 * addresses) then hand out different addresses.
 */
export function applySeed(store: Store, addressBlock = 0): void {
  const now = isoSeconds();
  store.tx(() => {
    for (const f of SEED_FLAVORS) if (!store.get('flavors', f.id)) store.put('flavors', f);
    if (!store.get('volume_types', DEFAULT_VOLUME_TYPE.id)) store.put('volume_types', DEFAULT_VOLUME_TYPE);
    for (const [name, props] of IMAGES) if (!store.get('images', seedImageId(name))) store.put('images', image(name, props, now));
    for (const n of NETWORKS) {
      if (!store.get('networks', n.id)) store.put('networks', network(n, now));
      const s = subnet(n, now, addressBlock);
      if (!store.get('subnets', s.id)) store.put('subnets', s);
    }
  });
}

/** Gives the seeded networks, subnets and images their owner once the admin project's id is known. */
export function adoptSeed(store: Store, projectId: string): void {
  store.tx(() => {
    for (const kind of ['networks', 'subnets'] as const) {
      for (const r of store.list(kind)) if (r.project_id === UNRESOLVED_OWNER) store.put(kind, { ...r, project_id: projectId });
    }
    for (const r of store.list('images')) if (r.owner === UNRESOLVED_OWNER) store.put('images', { ...r, owner: projectId });
  });
}
