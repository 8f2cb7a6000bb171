/**
 * The simulated Neutron IPAM. Networks and subnets created by stacks get
 * addresses from their subnet's CIDR. Networks the simulator does not own (an
 * external network id passed in as a parameter) get addresses from the SSH
 * pool (sshCidr, loopback by default) so a later feature can reach servers.
 */
import { newMacAddress, stableUuid } from '../util/ids';
import type { FixedIp, NetworkState, PortRecord, SubnetRecord } from '../state/model';
import { isPlainObject } from './template';

/** A failure Neutron would report at runtime (the resource ends *_FAILED, not a 400). */
export class AllocationError extends Error {}

interface Cidr {
  base: number;
  size: number;
}

export function parseCidr(cidr: string): Cidr | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr.trim());
  if (!m) return undefined;
  const octets = m.slice(1, 5).map(Number);
  const prefix = Number(m[5]);
  if (octets.some((o) => o > 255) || prefix > 30) return undefined;
  const size = 2 ** (32 - prefix);
  const ip = octets.reduce((acc, o) => acc * 256 + o, 0);
  return { base: ip - (ip % size), size };
}

export function ipToInt(ip: string): number | undefined {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return parts.reduce((acc, o) => acc * 256 + o, 0);
}

export function intToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

function inCidr(ip: string, cidr: Cidr): boolean {
  const n = ipToInt(ip);
  return n !== undefined && n >= cidr.base && n < cidr.base + cidr.size;
}

/** Lowest free host address: skips the network address, the gateway (.1) and broadcast. */
function allocateFrom(cidr: Cidr, used: Record<string, string>, gateway: string | undefined): string | undefined {
  for (let n = cidr.base + 2; n < cidr.base + cidr.size - 1; n++) {
    const ip = intToIp(n);
    if (ip !== gateway && !(ip in used)) return ip;
  }
  return undefined;
}

export function createNetwork(state: NetworkState, id: string, name: string): void {
  state.networks[id] = { id, name };
}

export function deleteNetwork(state: NetworkState, id: string): void {
  delete state.networks[id];
}

/** A network reference may be an id or a name; names resolve only to simulator-owned networks. */
export function resolveNetworkId(state: NetworkState, ref: string): string {
  if (state.networks[ref]) return ref;
  return Object.values(state.networks).find((n) => n.name === ref)?.id ?? ref;
}

export function networkLabel(state: NetworkState, networkId: string): string {
  return state.networks[networkId]?.name ?? networkId;
}

export function subnetsOfNetwork(state: NetworkState, networkId: string): SubnetRecord[] {
  return Object.values(state.subnets).filter((s) => s.networkId === networkId);
}

export function createSubnet(
  state: NetworkState,
  spec: { id: string; name: string; networkRef: string; cidr: string; gatewayIp?: string },
): SubnetRecord {
  const cidr = parseCidr(spec.cidr);
  if (!cidr) throw new AllocationError(`Invalid input for cidr. Reason: '${spec.cidr}' is not a valid IPv4 subnet.`);
  const subnet: SubnetRecord = {
    id: spec.id,
    name: spec.name,
    networkId: resolveNetworkId(state, spec.networkRef),
    cidr: `${intToIp(cidr.base)}/${32 - Math.log2(cidr.size)}`,
    gatewayIp: spec.gatewayIp ?? intToIp(cidr.base + 1),
    used: {},
  };
  state.subnets[subnet.id] = subnet;
  return subnet;
}

export function deleteSubnet(state: NetworkState, id: string): void {
  delete state.subnets[id];
}

export function allocationPool(subnet: SubnetRecord): { start: string; end: string } {
  const cidr = parseCidr(subnet.cidr)!;
  return { start: intToIp(cidr.base + 2), end: intToIp(cidr.base + cidr.size - 2) };
}

interface FixedIpRequest {
  subnet?: string;
  ip_address?: string;
}

function fixedIpRequests(raw: unknown): FixedIpRequest[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isPlainObject).map((r) => ({
    subnet: (r.subnet ?? r.subnet_id) as string | undefined,
    ip_address: r.ip_address as string | undefined,
  }));
}

export interface PortSpec {
  id: string;
  networkRef: string;
  fixedIps: unknown;
  sshCidr: string;
  mac?: string;
}

/** Creates a port and its addresses; throws AllocationError like Neutron would. */
export function createPort(state: NetworkState, spec: PortSpec): PortRecord {
  const networkId = resolveNetworkId(state, spec.networkRef);
  const owned = subnetsOfNetwork(state, networkId);
  const requests = fixedIpRequests(spec.fixedIps);
  const external = owned.length === 0 && !state.networks[networkId];
  const fixedIps = external
    ? allocateExternal(state, spec, networkId, requests)
    : allocateOwned(state, spec.id, networkId, owned, requests);
  const port: PortRecord = {
    id: spec.id,
    networkId,
    networkLabel: networkLabel(state, networkId),
    fixedIps,
    mac: spec.mac ?? newMacAddress(),
    deviceId: '',
    external,
  };
  state.ports[port.id] = port;
  return port;
}

function allocateOwned(state: NetworkState, portId: string, networkId: string, subnets: SubnetRecord[], requests: FixedIpRequest[]): FixedIp[] {
  // No explicit request: one address from the first subnet (a network without subnets gives none).
  const wanted = requests.length > 0 ? requests : subnets.length > 0 ? [{ subnet: subnets[0].id }] : [];
  const out: FixedIp[] = [];
  for (const req of wanted) {
    const subnet = req.subnet
      ? subnets.find((s) => s.id === req.subnet || s.name === req.subnet)
      : req.ip_address
        ? subnets.find((s) => inCidr(req.ip_address!, parseCidr(s.cidr)!))
        : subnets[0];
    if (!subnet) {
      throw new AllocationError(`Subnet ${req.subnet ?? `for ${req.ip_address}`} could not be found on network ${networkId}.`);
    }
    const ip = req.ip_address ?? allocateFrom(parseCidr(subnet.cidr)!, subnet.used, subnet.gatewayIp);
    if (!ip) throw new AllocationError(`No more IP addresses available on network ${networkId}.`);
    if (ip in subnet.used) throw new AllocationError(`IP address ${ip} already allocated in subnet ${subnet.id}`);
    subnet.used[ip] = portId;
    out.push({ ip_address: ip, subnet_id: subnet.id });
  }
  return out;
}

function allocateExternal(state: NetworkState, spec: PortSpec, networkId: string, requests: FixedIpRequest[]): FixedIp[] {
  const pool = parseCidr(spec.sshCidr);
  if (!pool) throw new AllocationError(`Invalid sshCidr ${spec.sshCidr}`);
  const wanted = requests.length > 0 ? requests : [{}];
  return wanted.map((req) => {
    const ip = req.ip_address ?? allocateFrom(pool, state.externalUsed, undefined);
    if (!ip) throw new AllocationError(`No more IP addresses available on network ${networkId}.`);
    if (inCidr(ip, pool)) {
      if (ip in state.externalUsed) throw new AllocationError(`IP address ${ip} already allocated in network ${networkId}`);
      state.externalUsed[ip] = spec.id;
    }
    // The subnet of an external network is unknown here: the one asked for, else a stable made-up id.
    return { ip_address: ip, subnet_id: req.subnet ?? stableUuid(`external-subnet:${networkId}`) };
  });
}

export function releasePort(state: NetworkState, id: string): void {
  const port = state.ports[id];
  if (!port) return;
  for (const fixed of port.fixedIps) {
    const subnet = state.subnets[fixed.subnet_id];
    if (subnet?.used[fixed.ip_address] === id) delete subnet.used[fixed.ip_address];
    if (state.externalUsed[fixed.ip_address] === id) delete state.externalUsed[fixed.ip_address];
  }
  delete state.ports[id];
}
