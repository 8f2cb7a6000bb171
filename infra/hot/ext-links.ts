/**
 * Reading the request's extVirtualLinks: which network an external CP goes
 * to and which fixed IPs / subnets its cpConfig asks for. cpConfig is a map
 * (SOL003 v2+, one entry per CP instance) or a list (v1 requests, as in
 * Tacker's samples); both are accepted.
 */
import type { InstantiateInput } from './types';

type ExtVirtualLink = NonNullable<InstantiateInput['extVirtualLinks']>[number];
type ExtCp = ExtVirtualLink['extCps'][number];

/** Heat OS::Neutron::Port fixed_ips entry. */
export interface HeatFixedIp { ip_address?: string; subnet?: string }

export interface CpConfigEntry { key?: string; config: Record<string, unknown> }

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ext VL and ext CP entry that carry a CP descriptor id, if any. */
export function findExtCp(input: InstantiateInput, cpdId: string): { link: ExtVirtualLink; extCp: ExtCp } | undefined {
  for (const link of input.extVirtualLinks ?? []) {
    const extCp = link.extCps.find((cp) => cp.cpdId === cpdId);
    if (extCp) return { link, extCp };
  }
  return undefined;
}

/** The network (extVirtualLinks[].resourceId) an external CP attaches to. */
export function networkForCp(input: InstantiateInput, cpdId: string): string | undefined {
  return findExtCp(input, cpdId)?.link.resourceId;
}

export function cpConfigEntries(cpConfig: unknown): CpConfigEntry[] {
  if (Array.isArray(cpConfig)) return cpConfig.filter(isObject).map((config) => ({ config }));
  if (isObject(cpConfig)) {
    return Object.entries(cpConfig).flatMap(([key, config]) => (isObject(config) ? [{ key, config }] : []));
  }
  return [];
}

/**
 * The cpConfig entry for the index-th instance of a CP. Each entry describes
 * one CP instance, so VNFC i takes entry i; when there are fewer entries than
 * VNFCs the last one is reused (a single entry applies to all instances).
 */
export function cpConfigFor(input: InstantiateInput, cpdId: string, index: number): CpConfigEntry | undefined {
  const entries = cpConfigEntries(findExtCp(input, cpdId)?.extCp.cpConfig);
  return entries.length ? entries[Math.min(index, entries.length - 1)] : undefined;
}

function ipAddressesOf(config: Record<string, unknown>): Record<string, unknown>[] {
  const protocols = Array.isArray(config.cpProtocolData) ? config.cpProtocolData : [];
  return protocols.flatMap((p) => {
    const ipOverEthernet = isObject(p) ? p.ipOverEthernet : undefined;
    const ips = isObject(ipOverEthernet) ? ipOverEthernet.ipAddresses : undefined;
    return Array.isArray(ips) ? ips.filter(isObject) : [];
  });
}

/** Heat fixed_ips for the index-th instance of an external CP ([] when none asked). */
export function fixedIpsForCp(input: InstantiateInput, cpdId: string, index: number): HeatFixedIp[] {
  const entry = cpConfigFor(input, cpdId, index);
  if (!entry) return [];
  return ipAddressesOf(entry.config).flatMap((ip) => {
    const out: HeatFixedIp = {};
    // Like Tacker: one port gets one address per ipAddresses entry.
    if (Array.isArray(ip.fixedAddresses) && ip.fixedAddresses.length) out.ip_address = String(ip.fixedAddresses[0]);
    if (typeof ip.subnetId === 'string') out.subnet = ip.subnetId;
    return Object.keys(out).length ? [out] : [];
  });
}

/**
 * The external connectivity after a ChangeExtVnfConnectivityRequest (SOL003
 * 5.4.11), as Tacker merges it: every CP the request names leaves the ext VL
 * it was on and joins the request's VL; a request VL with a known id replaces
 * that VL's data (its resourceId too: all its CPs move to that network); new
 * VLs are added; a VL left without CPs goes. Pure and idempotent.
 */
export function mergeExtVirtualLinks(current: ExtVirtualLink[], requested: ExtVirtualLink[]): ExtVirtualLink[] {
  const moved = new Set(requested.flatMap((l) => l.extCps.map((c) => c.cpdId)));
  const out: ExtVirtualLink[] = [];
  for (const link of current) {
    const req = requested.find((r) => r.id === link.id);
    const extCps = [...link.extCps.filter((c) => !moved.has(c.cpdId)), ...(req?.extCps ?? [])];
    if (extCps.length) out.push({ ...link, ...req, extCps });
  }
  for (const req of requested) if (!current.some((l) => l.id === req.id)) out.push(req);
  return out;
}

/** The instance's stack input with the request's external connectivity. */
export function withExtConnectivity(input: InstantiateInput, requested: ExtVirtualLink[]): InstantiateInput {
  return { ...input, extVirtualLinks: mergeExtVirtualLinks(input.extVirtualLinks ?? [], requested) };
}
