/**
 * Address allocation from a subnet's allocation pools, lowest free address
 * first. Errors are Neutron's: a taken address is IpAddressAlreadyAllocated,
 * an exhausted network IpAddressGenerationFailure.
 */
import { badRequest, conflict } from '../http/errors';
import type { FixedIp, SubnetRecord } from '../store/records';
import type { Store } from '../store/store';
import { inCidr, intToIp, ipToInt, parseCidr } from './ip';

/** Addresses in use on a subnet (by every port, any project). */
export function usedAddresses(store: Store, subnetId: string, exceptPortId?: string): Set<number> {
  const used = new Set<number>();
  for (const port of store.list('ports')) {
    if (port.id === exceptPortId) continue;
    for (const f of port.fixed_ips) if (f.subnet_id === subnetId) used.add(ipToInt(f.ip_address)!);
  }
  return used;
}

function freeAddress(subnet: SubnetRecord, used: Set<number>): string | undefined {
  const gateway = subnet.gateway_ip ? ipToInt(subnet.gateway_ip) : undefined;
  for (const pool of subnet.allocation_pools) {
    const end = ipToInt(pool.end)!;
    for (let n = ipToInt(pool.start)!; n <= end; n++) if (n !== gateway && !used.has(n)) return intToIp(n);
  }
  return undefined;
}

export interface FixedIpRequest {
  subnet_id?: string;
  ip_address?: string;
}

/**
 * The fixed IPs of a new (or updated) port on a network: what was asked for,
 * or one address from the first IPv4 subnet with room when nothing was.
 */
export function allocateFixedIps(store: Store, networkId: string, requested: FixedIpRequest[] | undefined, portId?: string): FixedIp[] {
  const subnets = store.list('subnets').filter((s) => s.network_id === networkId && s.ip_version === 4);
  if (requested === undefined) {
    if (subnets.length === 0) return [];
    for (const subnet of subnets) {
      const ip = freeAddress(subnet, usedAddresses(store, subnet.id, portId));
      if (ip) return [{ subnet_id: subnet.id, ip_address: ip }];
    }
    throw conflict(`No more IP addresses available on network ${networkId}.`, 'IpAddressGenerationFailure');
  }
  const out: FixedIp[] = [];
  for (const req of requested) {
    const subnet = req.subnet_id
      ? subnets.find((s) => s.id === req.subnet_id)
      : subnets.find((s) => req.ip_address !== undefined && inCidr(req.ip_address, parseCidr(s.cidr)!));
    if (!subnet) {
      throw badRequest(
        req.subnet_id
          ? `Invalid input for operation: Failed to create port on network ${networkId}, because fixed_ips included invalid subnet ${req.subnet_id}.`
          : `Invalid input for operation: IP address ${req.ip_address} is not a valid IP for any of the subnets on the specified network.`,
        'InvalidInput',
      );
    }
    const used = usedAddresses(store, subnet.id, portId);
    for (const f of out) if (f.subnet_id === subnet.id) used.add(ipToInt(f.ip_address)!);
    if (req.ip_address !== undefined) {
      const n = ipToInt(req.ip_address);
      if (n === undefined || !inCidr(req.ip_address, parseCidr(subnet.cidr)!)) {
        throw badRequest(`Invalid input for operation: IP address ${req.ip_address} is not a valid IP for the specified subnet.`, 'InvalidInput');
      }
      if (used.has(n)) throw conflict(`IP address ${req.ip_address} already allocated in subnet ${subnet.id}`, 'IpAddressAlreadyAllocated');
      out.push({ subnet_id: subnet.id, ip_address: req.ip_address });
    } else {
      const ip = freeAddress(subnet, used);
      if (!ip) throw conflict(`No more IP addresses available on network ${networkId}.`, 'IpAddressGenerationFailure');
      out.push({ subnet_id: subnet.id, ip_address: ip });
    }
  }
  return out;
}
