/**
 * Ports: creation (network, addresses, MAC, security groups), binding to a
 * Nova server (device_id, compute:nova, ACTIVE) and unbinding (DOWN), shared
 * by the Neutron API and Nova's own port handling.
 */
import type { RequestContext } from '../auth/context';
import { badRequest, conflict, notFound } from '../http/errors';
import type { PortRecord } from '../store/records';
import type { Store } from '../store/store';
import { newMacAddress, newUuid } from '../util/ids';
import { isoSeconds } from '../util/time';
import { defaultGroup } from './default-group';
import { allocateFixedIps } from './ipam';
import type { PortCreateBody } from './schemas';
import { networkVisible, ownsOrAdmin, owningProject } from './visibility';

export function visibleNetwork(store: Store, ctx: RequestContext, id: string) {
  const net = store.get('networks', id);
  if (!net || !networkVisible(ctx, net)) throw notFound(`Network ${id} could not be found.`, 'NetworkNotFound');
  return net;
}

export function securityGroupIds(store: Store, ctx: RequestContext, projectId: string, ids: string[] | undefined): string[] {
  if (ids === undefined) return [defaultGroup(store, projectId).id];
  for (const id of ids) {
    const group = store.get('security_groups', id);
    if (!group || !ownsOrAdmin(ctx, group.project_id)) throw notFound(`Security group ${id} does not exist`, 'SecurityGroupNotFound');
  }
  return [...new Set(ids)];
}

function uniqueMac(store: Store, networkId: string, mac: string | undefined): string {
  const taken = (m: string) => store.list('ports').some((p) => p.network_id === networkId && p.mac_address === m);
  if (mac !== undefined) {
    const lower = mac.toLowerCase();
    if (taken(lower)) throw conflict(`Unable to complete operation for network ${networkId}. The mac address ${lower} is in use.`, 'MacAddressInUse');
    return lower;
  }
  for (;;) {
    const m = newMacAddress();
    if (!taken(m)) return m;
  }
}

export function createPort(store: Store, ctx: RequestContext, spec: PortCreateBody, extra: Record<string, unknown> = {}): PortRecord {
  return store.tx(() => {
    const net = visibleNetwork(store, ctx, spec.network_id);
    const projectId = owningProject(ctx, spec);
    const portSecurity = spec.port_security_enabled ?? net.port_security_enabled;
    if (!portSecurity && spec.security_groups && spec.security_groups.length > 0) {
      throw badRequest('Port has security group associated. Cannot disable port security or ip address until security group is removed', 'PortSecurityPortHasSecurityGroup');
    }
    const now = isoSeconds();
    const id = newUuid();
    const port: PortRecord = {
      id,
      name: spec.name ?? '',
      project_id: projectId,
      description: spec.description ?? '',
      tags: spec.tags ?? [],
      created_at: now,
      updated_at: now,
      revision_number: 1,
      network_id: net.id,
      mac_address: uniqueMac(store, net.id, spec.mac_address),
      fixed_ips: allocateFixedIps(store, net.id, spec.fixed_ips, id),
      device_id: spec.device_id ?? '',
      device_owner: spec.device_owner ?? '',
      status: 'DOWN',
      admin_state_up: spec.admin_state_up ?? true,
      security_groups: portSecurity ? securityGroupIds(store, ctx, projectId, spec.security_groups) : [],
      port_security_enabled: portSecurity,
      allowed_address_pairs: (spec.allowed_address_pairs ?? []).map((p) => ({ ip_address: p.ip_address, mac_address: p.mac_address ?? '' })),
      'binding:vnic_type': spec['binding:vnic_type'] ?? 'normal',
      'binding:host_id': spec['binding:host_id'] ?? '',
      'binding:profile': spec['binding:profile'] ?? {},
      dns_name: spec.dns_name ?? '',
      extra,
    };
    port.allowed_address_pairs = port.allowed_address_pairs.map((p) => ({ ...p, mac_address: p.mac_address || port.mac_address }));
    return store.put('ports', port);
  });
}

/** Nova plugs the port into a server, on the compute host the server runs on. */
export function bindPort(store: Store, portId: string, serverId: string, zone: string, host: string): void {
  const port = store.get('ports', portId)!;
  store.put('ports', {
    ...port,
    device_id: serverId,
    device_owner: `compute:${zone}`,
    'binding:host_id': host,
    status: 'ACTIVE',
    updated_at: isoSeconds(),
    revision_number: port.revision_number + 1,
  });
}

/** The server let go of the port: it stays, unbound and DOWN. */
export function unbindPort(store: Store, portId: string): void {
  const port = store.get('ports', portId);
  if (!port) return;
  store.put('ports', { ...port, device_id: '', device_owner: '', 'binding:host_id': '', status: 'DOWN', updated_at: isoSeconds(), revision_number: port.revision_number + 1 });
}
