/**
 * CpProtocolInfo of a CP instance: the addresses the VIM assigned its port
 * (Neutron's fixed IPs and MAC, read by the activity beside Heat's resource
 * list), else what the request asked for in its cpConfig (CpProtocolData).
 * An address the request did not fix is isDynamic (SOL003 IpAddresses).
 */
import { cpConfigFor } from '../hot/ext-links';
import type { InstantiateInput } from '../hot/types';
import type { CpProtocolInfo } from '../../model/instantiated-vnf-info';

export const DEFAULT_CP_PROTOCOL: CpProtocolInfo[] = [{ layerProtocol: 'IP_OVER_ETHERNET' }];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function ipOverEthernetInfo(data: Record<string, unknown>): CpProtocolInfo['ipOverEthernet'] {
  const info: NonNullable<CpProtocolInfo['ipOverEthernet']> = {};
  if (typeof data.macAddress === 'string') info.macAddress = data.macAddress;
  if (typeof data.segmentationId === 'string') info.segmentationId = data.segmentationId;
  if (Array.isArray(data.ipAddresses)) {
    info.ipAddresses = data.ipAddresses.filter(isObject).map((ip) => ({
      type: String(ip.type ?? 'IPV4'),
      ...(Array.isArray(ip.fixedAddresses) ? { addresses: ip.fixedAddresses.map(String) } : {}),
      ...(ip.numDynamicAddresses !== undefined ? { isDynamic: true } : {}),
      ...(ip.addressRange !== undefined ? { addressRange: ip.addressRange } : {}),
      ...(typeof ip.subnetId === 'string' ? { subnetId: ip.subnetId } : {}),
    }));
  }
  return Object.keys(info).length ? info : undefined;
}

/** A port's addresses as Neutron has them (infra/openstack/cloud-lookups.ts PortAddresses, without the import). */
export interface VimPort { macAddress?: string; fixedIps: { ipAddress: string; subnetId?: string }[] }

/**
 * The VIM's view of a port: one IP_OVER_ETHERNET entry with its MAC and one
 * ipAddresses entry per fixed IP; `requested` (the request's protocol info for
 * this CP instance) says which addresses were fixed, and keeps its segmentationId.
 */
export function vimCpProtocol(port: VimPort, requested: CpProtocolInfo[] = []): CpProtocolInfo[] {
  const fixed = new Set(requested.flatMap((r) => r.ipOverEthernet?.ipAddresses ?? []).flatMap((a) => a.addresses ?? []));
  const segmentationId = requested.find((r) => r.ipOverEthernet?.segmentationId)?.ipOverEthernet?.segmentationId;
  const ipAddresses = port.fixedIps.map((f) => ({
    type: f.ipAddress.includes(':') ? 'IPV6' : 'IPV4',
    addresses: [f.ipAddress],
    ...(fixed.has(f.ipAddress) ? {} : { isDynamic: true }),
    ...(f.subnetId ? { subnetId: f.subnetId } : {}),
  }));
  return [{
    layerProtocol: 'IP_OVER_ETHERNET',
    ipOverEthernet: { ...(port.macAddress ? { macAddress: port.macAddress } : {}), ...(segmentationId ? { segmentationId } : {}), ...(ipAddresses.length ? { ipAddresses } : {}) },
  }];
}

/** Protocol info and cpConfig key for the index-th instance of an external CP (as requested). */
export function extCpProtocol(input: InstantiateInput, cpdId: string, index: number): { cpConfigId?: string; cpProtocolInfo: CpProtocolInfo[] } {
  const entry = cpConfigFor(input, cpdId, index);
  const data = Array.isArray(entry?.config.cpProtocolData) ? entry.config.cpProtocolData.filter(isObject) : [];
  const cpProtocolInfo = data.map((d): CpProtocolInfo => {
    const ip = isObject(d.ipOverEthernet) ? ipOverEthernetInfo(d.ipOverEthernet) : undefined;
    return { layerProtocol: 'IP_OVER_ETHERNET', ...(ip ? { ipOverEthernet: ip } : {}) };
  });
  return { cpConfigId: entry?.key, cpProtocolInfo: cpProtocolInfo.length ? cpProtocolInfo : structuredClone(DEFAULT_CP_PROTOCOL) };
}
