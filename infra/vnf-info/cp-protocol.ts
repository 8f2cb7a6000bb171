/**
 * CpProtocolInfo of an external CP instance, from the CpProtocolData the
 * request gave in its cpConfig (SOL003: addresses requested, not the ones
 * the VIM assigned, which Heat's resource list does not carry).
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

/** Protocol info and cpConfig key for the index-th instance of an external CP. */
export function extCpProtocol(input: InstantiateInput, cpdId: string, index: number): { cpConfigId?: string; cpProtocolInfo: CpProtocolInfo[] } {
  const entry = cpConfigFor(input, cpdId, index);
  const data = Array.isArray(entry?.config.cpProtocolData) ? entry.config.cpProtocolData.filter(isObject) : [];
  const cpProtocolInfo = data.map((d): CpProtocolInfo => {
    const ip = isObject(d.ipOverEthernet) ? ipOverEthernetInfo(d.ipOverEthernet) : undefined;
    return { layerProtocol: 'IP_OVER_ETHERNET', ...(ip ? { ipOverEthernet: ip } : {}) };
  });
  return { cpConfigId: entry?.key, cpProtocolInfo: cpProtocolInfo.length ? cpProtocolInfo : structuredClone(DEFAULT_CP_PROTOCOL) };
}
