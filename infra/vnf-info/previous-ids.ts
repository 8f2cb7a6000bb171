/**
 * Id stability across heal/scale: instantiatedVnfInfo is rebuilt from Heat
 * after every operation, and a VNFC (identified by its Heat resource name)
 * keeps the ids it had — its vnfcResourceInfo, vnfcInfo, CP instances, link
 * ports and storages — even when Heat replaced the server underneath.
 */
import type { InstantiatedVnfInfo, VnfcResourceInfo } from '../../model/instantiated-vnf-info';

export interface PreviousIds {
  vnfc(vduId: string, heatResourceName: string): VnfcResourceInfo | undefined;
  vnfcInfoId(vnfcResourceInfoId: string): string | undefined;
  vnfcCpId(vnfc: VnfcResourceInfo | undefined, cpdId: string): string | undefined;
  storageId(vnfc: VnfcResourceInfo | undefined, virtualStorageDescId: string): string | undefined;
  /** The VnfExtCpInfo id whose associatedVnfcCpId is this VNFC CP. */
  extCpId(vnfcCpId: string): string | undefined;
  /** The ext link port carrying this ext CP instance. */
  extLinkPortId(extCpId: string): string | undefined;
  /** The VNF link port carrying this VNFC CP. */
  vnfLinkPortId(vnfcCpId: string): string | undefined;
  virtualLinkId(vnfVirtualLinkDescId: string): string | undefined;
}

export function previousIds(prev?: InstantiatedVnfInfo): PreviousIds {
  const vnfcs = prev?.vnfcResourceInfo ?? [];
  const storages = prev?.virtualStorageResourceInfo ?? [];
  const linkPorts = [...(prev?.vnfVirtualLinkResourceInfo ?? []), ...(prev?.extManagedVirtualLinkInfo ?? [])].flatMap((vl) => vl.vnfLinkPorts ?? []);
  const extLinkPorts = (prev?.extVirtualLinkInfo ?? []).flatMap((vl) => vl.extLinkPorts ?? []);
  return {
    vnfc: (vduId, name) => vnfcs.find((v) => v.vduId === vduId && v.metadata?.heatResourceName === name),
    vnfcInfoId: (resId) => prev?.vnfcInfo?.find((i) => i.vnfcResourceInfoId === resId)?.id,
    vnfcCpId: (vnfc, cpdId) => vnfc?.vnfcCpInfo?.find((c) => c.cpdId === cpdId)?.id,
    storageId: (vnfc, descId) =>
      storages.find((s) => s.virtualStorageDescId === descId && vnfc?.storageResourceIds?.includes(s.id))?.id,
    extCpId: (vnfcCpId) => prev?.extCpInfo?.find((c) => c.associatedVnfcCpId === vnfcCpId)?.id,
    extLinkPortId: (extCpId) => extLinkPorts.find((p) => p.cpInstanceId === extCpId)?.id,
    vnfLinkPortId: (vnfcCpId) => linkPorts.find((p) => p.cpInstanceId === vnfcCpId)?.id,
    virtualLinkId: (descId) => prev?.vnfVirtualLinkResourceInfo?.find((v) => v.vnfVirtualLinkDescId === descId)?.id,
  };
}
