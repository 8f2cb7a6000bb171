/** Nova's representation of servers, flavors and keypairs, by microversion. */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { RequestContext } from '../auth/context';
import { hostUrl } from '../http/urls';
import { hostOf } from './scheduler';
import type { FlavorRecord, KeypairRecord, ServerRecord } from '../store/records';
import type { Store } from '../store/store';
import { atLeast } from './versions';

export function links(req: Request, collection: string, id: string) {
  const host = hostUrl(req);
  return [
    { rel: 'self', href: `${host}/compute/v2.1/${collection}/${id}` },
    { rel: 'bookmark', href: `${host}/compute/${collection}/${id}` },
  ];
}

export function flavorSummary(f: FlavorRecord, req: Request, res: Response) {
  return { id: f.id, name: f.name, links: links(req, 'flavors', f.id), ...(atLeast(res, 55) ? { description: f.description } : {}) };
}

export function flavorDetail(f: FlavorRecord, req: Request, res: Response) {
  return {
    ...flavorSummary(f, req, res),
    ram: f.ram,
    disk: f.disk,
    vcpus: f.vcpus,
    swap: f.swap === 0 && !atLeast(res, 75) ? '' : f.swap,
    'OS-FLV-EXT-DATA:ephemeral': f.ephemeral,
    'OS-FLV-DISABLED:disabled': false,
    rxtx_factor: f.rxtx_factor,
    'os-flavor-access:is_public': f.is_public,
    ...(atLeast(res, 61) ? { extra_specs: f.extra_specs } : {}),
  };
}

export function keypairView(k: KeypairRecord, res: Response, full: boolean) {
  const base = { name: k.name, public_key: k.public_key, fingerprint: k.fingerprint, ...(atLeast(res, 2) ? { type: k.type } : {}) };
  if (!full) return base;
  return { ...base, user_id: k.user_id, created_at: k.created_at.replace('Z', ''), deleted: false, deleted_at: null, updated_at: null, id: 1 };
}

/** {"<network name>": [{addr, version, OS-EXT-IPS:type, OS-EXT-IPS-MAC:mac_addr}]}, in interface order. */
export function addressesOf(s: ServerRecord, store: Store) {
  const out: Record<string, { addr: string; version: number; 'OS-EXT-IPS:type': string; 'OS-EXT-IPS-MAC:mac_addr': string }[]> = {};
  for (const iface of s.interfaces) {
    const port = store.get('ports', iface.port_id);
    if (!port) continue;
    const label = store.get('networks', port.network_id)?.name || port.network_id;
    for (const f of port.fixed_ips) {
      (out[label] ??= []).push({ addr: f.ip_address, version: 4, 'OS-EXT-IPS:type': 'fixed', 'OS-EXT-IPS-MAC:mac_addr': port.mac_address });
    }
  }
  return out;
}

export function instanceName(id: string): string {
  return `instance-${id.slice(0, 8)}`;
}

function serverFlavor(s: ServerRecord, store: Store, req: Request, res: Response) {
  const f = store.get('flavors', s.flavor_id);
  if (!atLeast(res, 47)) return { id: s.flavor_id, links: [{ rel: 'bookmark', href: `${hostUrl(req)}/compute/flavors/${s.flavor_id}` }] };
  return {
    vcpus: f?.vcpus ?? 0,
    ram: f?.ram ?? 0,
    disk: f?.disk ?? 0,
    ephemeral: f?.ephemeral ?? 0,
    swap: f?.swap ?? 0,
    original_name: f?.name ?? s.flavor_id,
    extra_specs: f?.extra_specs ?? {},
  };
}

export function serverSummary(s: ServerRecord, req: Request) {
  return { id: s.id, name: s.name, links: links(req, 'servers', s.id) };
}

export function serverDetail(s: ServerRecord, store: Store, ctx: RequestContext, req: Request, res: Response) {
  // Nova's hostId: the host as the project may see it, a hash (the host's name is the admin's)
  const hostId = hostOf(s) ? createHash('sha224').update(s.project_id + hostOf(s)).digest('hex') : '';
  const admin = ctx.isAdmin;
  const view: Record<string, unknown> = {
    id: s.id,
    name: s.name,
    status: s.status,
    tenant_id: s.project_id,
    user_id: s.user_id,
    metadata: s.metadata,
    hostId: s.status === 'BUILD' && !s.launched_at ? '' : hostId,
    image: s.image_id === '' ? '' : { id: s.image_id, links: [{ rel: 'bookmark', href: `${hostUrl(req)}/compute/images/${s.image_id}` }] },
    flavor: serverFlavor(s, store, req, res),
    created: s.created,
    updated: s.updated,
    addresses: addressesOf(s, store),
    accessIPv4: s.access_ipv4,
    accessIPv6: s.access_ipv6,
    links: links(req, 'servers', s.id),
    'OS-DCF:diskConfig': 'MANUAL',
    progress: 0,
    'OS-EXT-AZ:availability_zone': s.availability_zone,
    config_drive: s.config_drive,
    key_name: s.key_name,
    'OS-SRV-USG:launched_at': s.launched_at,
    'OS-SRV-USG:terminated_at': null,
    security_groups: s.security_groups.map((name) => ({ name })),
    'OS-EXT-STS:task_state': s.task_state,
    'OS-EXT-STS:vm_state': s.vm_state,
    'OS-EXT-STS:power_state': s.power_state,
    'os-extended-volumes:volumes_attached': s.volumes.map((v) => ({ id: v.volume_id, ...(atLeast(res, 3) ? { delete_on_termination: v.delete_on_termination } : {}) })),
  };
  if (admin) {
    Object.assign(view, {
      'OS-EXT-SRV-ATTR:host': hostOf(s) || null,
      'OS-EXT-SRV-ATTR:instance_name': instanceName(s.id),
      'OS-EXT-SRV-ATTR:hypervisor_hostname': hostOf(s) || null,
    });
    if (atLeast(res, 3)) {
      Object.assign(view, {
        'OS-EXT-SRV-ATTR:reservation_id': `r-${s.id.slice(0, 8)}`,
        'OS-EXT-SRV-ATTR:launch_index': 0,
        'OS-EXT-SRV-ATTR:hostname': hostnameOf(s.name),
        'OS-EXT-SRV-ATTR:kernel_id': '',
        'OS-EXT-SRV-ATTR:ramdisk_id': '',
        'OS-EXT-SRV-ATTR:root_device_name': '/dev/vda',
        'OS-EXT-SRV-ATTR:user_data': s.user_data,
      });
    }
    if (atLeast(res, 16)) view.host_status = 'UP';
  } else if (atLeast(res, 90)) {
    view['OS-EXT-SRV-ATTR:hostname'] = hostnameOf(s.name);
  }
  if (s.fault && (s.status === 'ERROR' || s.status === 'DELETED')) view.fault = s.fault;
  if (atLeast(res, 9)) view.locked = false;
  if (atLeast(res, 19)) view.description = s.description;
  if (atLeast(res, 26)) view.tags = s.tags;
  if (atLeast(res, 63)) view.trusted_image_certificates = null;
  if (atLeast(res, 71)) view.server_groups = store.list('server_groups').filter((g) => g.members.includes(s.id)).map((g) => g.id);
  if (atLeast(res, 73)) view.locked_reason = null;
  if (atLeast(res, 96)) view.pinned_availability_zone = null;
  return view;
}

/** What Nova makes of a display name for the guest's hostname. */
export function hostnameOf(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63) || 'server'
  );
}
