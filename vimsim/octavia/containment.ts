/**
 * Tenant containment of load balancers: a VIP port is made in the load
 * balancer's project, only on a network that project may use (its own,
 * shared or external); a member address must belong to the project (a port
 * of it, or an address of one of its own subnets) and is never one of the
 * host's own services (127.0.0.0/16: Keystone, Heat, the API, the simulator,
 * Temporal ...) or a VIP (a proxy looping into itself).
 */
import type { RequestContext } from '../auth/context';
import { badRequest } from '../http/errors';
import { inCidr, parseCidr } from '../network/ip';
import { createPort } from '../network/ports';
import { networkVisible, subnetVisible } from '../network/visibility';
import type { PortRecord } from '../store/records';
import type { Store } from '../store/store';
import type { VipPortRequest } from './schema';

export const VIP_OWNER = 'Octavia';
/** Where the host's own services listen; the simulator's subnets start at 127.20.0.0. */
const HOST_SERVICES = parseCidr('127.0.0.0/16')!;

/** The project's view of Neutron: what a non-admin token of it would see. */
function projectContext(projectId: string): RequestContext {
  return { userId: 'octavia', userName: 'octavia', projectId, projectName: '', roles: ['member'], isAdmin: false, trustId: null, trustorUserId: null, expiresAt: Date.now() + 60_000 };
}

function refuseHostAddress(address: string, what: string): void {
  if (inCidr(address, HOST_SERVICES)) throw badRequest(`${what} ${address} is in 127.0.0.0/16, reserved for the cloud's own services`);
}

export function createVipPort(store: Store, r: VipPortRequest): PortRecord {
  const ctx = projectContext(r.project_id);
  const subnet = r.subnet_id ? store.get('subnets', r.subnet_id) : undefined;
  // with the no-op network driver Octavia fills in a made-up network (or subnet) next to the real one
  const network = subnet ? store.get('networks', subnet.network_id) : r.network_id ? store.get('networks', r.network_id) : undefined;
  // one answer for "not there" and "not yours": no probing of other projects' ids
  const none = badRequest(`No VIP subnet or network ${r.subnet_id ?? r.network_id ?? ''} available to project ${r.project_id}`);
  if (subnet && !subnetVisible(ctx, subnet, store)) throw none;
  if (!network || !networkVisible(ctx, network)) throw none;
  const fixed = subnet || r.ip_address ? [{ ...(subnet ? { subnet_id: subnet.id } : {}), ...(r.ip_address ? { ip_address: r.ip_address } : {}) }] : undefined;
  return store.tx(() => {
    const port = createPort(store, ctx, {
      network_id: network.id,
      name: `octavia-lb-${r.loadbalancer_id}`,
      device_owner: VIP_OWNER,
      device_id: `lb-${r.loadbalancer_id}`,
      fixed_ips: fixed,
    });
    if (!port.fixed_ips.length) throw badRequest(`Network ${network.id} has no IPv4 subnet for a VIP`);
    refuseHostAddress(port.fixed_ips[0].ip_address, 'VIP address');
    return port;
  });
}

/** The VIP port of a load balancer, deleted only if it is one (a provider bug cannot take a tenant's port). */
export function deleteVipPort(store: Store, loadBalancerId: string, portId: string): void {
  const port = store.get('ports', portId);
  if (port && port.device_owner === VIP_OWNER && port.device_id === `lb-${loadBalancerId}`) store.remove('ports', portId);
}

export function checkMember(store: Store, projectId: string, address: string, subnetId?: string | null): void {
  refuseHostAddress(address, 'Member address');
  const ports = store.list('ports').filter((p) => p.fixed_ips.some((f) => f.ip_address === address));
  if (ports.some((p) => p.device_owner === VIP_OWNER)) throw badRequest(`Member address ${address} is a load balancer VIP`);
  if (subnetId) {
    const subnet = store.get('subnets', subnetId);
    if (!subnet || !subnetVisible(projectContext(projectId), subnet, store)) throw badRequest(`Member subnet ${subnetId} is not available to project ${projectId}`);
    if (!inCidr(address, parseCidr(subnet.cidr)!)) throw badRequest(`Member address ${address} is not in subnet ${subnetId} (${subnet.cidr})`);
  }
  const ownPort = ports.some((p) => p.project_id === projectId);
  const ownSubnet = store.list('subnets').some((s) => s.project_id === projectId && inCidr(address, parseCidr(s.cidr)!));
  if (!ownPort && !ownSubnet) throw badRequest(`Member address ${address} is neither on a port nor in a subnet of project ${projectId}`);
}
