/**
 * ETSI instantiatedVnfInfo of a VNF from its Heat stack's resources: pure,
 * rebuilt after every operation; ids survive through `previous`.
 */
import type { VnfdFlavour } from '../../model/vnfd';
import { findExtCp } from '../hot/ext-links';
import { scaleStatusForLevel } from '../hot/levels';
import { vduCpIds } from '../hot/nfv-param';
import type { InstantiateInput } from '../hot/types';
import { DEFAULT_CP_PROTOCOL, extCpProtocol, vimCpProtocol, type VimPort } from './cp-protocol';
import { findVnfcs, stackRefOf } from './heat-resources';
import { previousIds } from './previous-ids';
import type {
  CpProtocolInfo, ExtManagedVirtualLinkInfo, ExtVirtualLinkInfo, InstantiatedVnfInfo, ResourceHandle,
  VirtualStorageResourceInfo, VnfcCpInfo, VnfcInfo, VnfcResourceInfo, VnfExtCpInfo, VnfVirtualLinkResourceInfo,
} from '../../model/instantiated-vnf-info';

export type * from '../../model/instantiated-vnf-info';
export type { HeatResource } from './heat-resource';
import type { HeatResource } from './heat-resource';
export { findVnfcs } from './heat-resources';

export interface BuildInfoInput {
  flavour: VnfdFlavour;
  input: InstantiateInput;
  vimConnectionId: string;
  /** GET .../resources?nested_depth=N of the top stack. */
  resources: HeatResource[];
  /** The info before this operation, to keep ids stable across heal/scale. */
  previous?: InstantiatedVnfInfo;
  /** The VIM's addresses of the stack's ports, by port id (absent: only what the request asked for is shown). */
  ports?: Record<string, VimPort>;
  /** Current aspect levels; default: those of the requested (or default) instantiation level. */
  scaleStatus?: { aspectId: string; scaleLevel: number }[];
  newId: () => string;
}

const NET = 'OS::Neutron::Net';

export function buildInstantiatedVnfInfo(b: BuildInfoInput): InstantiatedVnfInfo {
  const { flavour, input, vimConnectionId, newId } = b;
  const prev = previousIds(b.previous);
  const handleOf = (r: HeatResource): ResourceHandle => ({ vimConnectionId, resourceId: r.physical_resource_id, vimLevelResourceType: r.resource_type });
  const netHandle = (resourceId: string): ResourceHandle => ({ vimConnectionId, resourceId, vimLevelResourceType: NET });
  /** What the VIM assigned the CP's port, else what was asked. */
  const protocolOf = (port: HeatResource | undefined, requested: CpProtocolInfo[]): CpProtocolInfo[] => {
    const vim = port && b.ports?.[port.physical_resource_id];
    return vim ? vimCpProtocol(vim, requested) : requested;
  };

  // Internal VLs the stack created, in VNFD order.
  const vnfVirtualLinkResourceInfo: VnfVirtualLinkResourceInfo[] = [];
  for (const vlId of Object.keys(flavour.virtualLinks)) {
    const net = b.resources.find((r) => r.resource_type === NET && r.resource_name === vlId && r.physical_resource_id);
    if (net) {
      vnfVirtualLinkResourceInfo.push({ id: prev.virtualLinkId(vlId) ?? newId(), vnfVirtualLinkDescId: vlId, networkResource: handleOf(net), vnfLinkPorts: [] });
    }
  }
  const extManagedVirtualLinkInfo: ExtManagedVirtualLinkInfo[] = (input.extManagedVirtualLinks ?? []).map((m) => ({
    id: m.id, vnfVirtualLinkDescId: m.vnfVirtualLinkDescId, networkResource: netHandle(m.resourceId), vnfLinkPorts: [],
  }));
  const extVirtualLinkInfo: ExtVirtualLinkInfo[] = (input.extVirtualLinks ?? []).map((l) => ({
    id: l.id, resourceHandle: netHandle(l.resourceId), currentVnfExtCpData: l.extCps,
  }));
  const linkOfVl = (vlId: string) =>
    vnfVirtualLinkResourceInfo.find((v) => v.vnfVirtualLinkDescId === vlId) ?? extManagedVirtualLinkInfo.find((v) => v.vnfVirtualLinkDescId === vlId);

  const vnfcResourceInfo: VnfcResourceInfo[] = [];
  const vnfcInfo: VnfcInfo[] = [];
  const extCpInfo: VnfExtCpInfo[] = [];
  const virtualStorageResourceInfo: VirtualStorageResourceInfo[] = [];
  const ordinal: Record<string, number> = {};

  for (const found of findVnfcs(flavour, b.resources)) {
    const { vduId } = found;
    // Which cpConfig entry this VNFC's external CPs were built from (see hot/ext-links).
    const cpIndex = found.index ?? (ordinal[vduId] ?? 0);
    ordinal[vduId] = (ordinal[vduId] ?? 0) + 1;
    const before = prev.vnfc(vduId, found.heatResourceName);
    const id = before?.id ?? newId();

    const storageResourceIds: string[] = [];
    for (const sid of flavour.vdus[vduId].storageIds) {
      const volume = found.volumes[sid];
      if (!volume) continue;
      const storageId = prev.storageId(before, sid) ?? newId();
      storageResourceIds.push(storageId);
      virtualStorageResourceInfo.push({ id: storageId, virtualStorageDescId: sid, storageResource: handleOf(volume) });
    }

    const vnfcCpInfo: VnfcCpInfo[] = [];
    for (const cpdId of vduCpIds(flavour, vduId)) {
      const cpId = prev.vnfcCpId(before, cpdId) ?? newId();
      const port = found.ports[cpdId];
      const vlId = flavour.cps[cpdId].virtualLinkId;
      if (vlId === undefined) {
        const { cpConfigId, cpProtocolInfo: requested } = extCpProtocol(input, cpdId, cpIndex);
        const cpProtocolInfo = protocolOf(port, requested);
        const cp: VnfcCpInfo = { id: cpId, cpdId, cpProtocolInfo };
        if (port) {
          const extCpId = prev.extCpId(cpId) ?? newId();
          const ext: VnfExtCpInfo = { id: extCpId, cpdId, ...(cpConfigId ? { cpConfigId } : {}), associatedVnfcCpId: cpId, cpProtocolInfo: structuredClone(cpProtocolInfo) };
          const linkId = findExtCp(input, cpdId)?.link.id;
          const link = extVirtualLinkInfo.find((l) => l.id === linkId);
          if (link) {
            ext.extLinkPortId = prev.extLinkPortId(extCpId) ?? newId();
            (link.extLinkPorts ??= []).push({ id: ext.extLinkPortId, resourceHandle: handleOf(port), cpInstanceId: extCpId });
          }
          extCpInfo.push(ext);
          cp.vnfExtCpId = extCpId;
        }
        vnfcCpInfo.push(cp);
      } else {
        const cp: VnfcCpInfo = { id: cpId, cpdId, cpProtocolInfo: protocolOf(port, structuredClone(DEFAULT_CP_PROTOCOL)) };
        const link = linkOfVl(vlId);
        if (port && link) {
          cp.vnfLinkPortId = prev.vnfLinkPortId(cpId) ?? newId();
          link.vnfLinkPorts.push({ id: cp.vnfLinkPortId, resourceHandle: handleOf(port), cpInstanceId: cpId, cpInstanceType: 'VNFC_CP' });
        }
        vnfcCpInfo.push(cp);
      }
    }

    vnfcResourceInfo.push({
      id,
      vduId,
      computeResource: handleOf(found.server),
      storageResourceIds,
      vnfcCpInfo,
      metadata: {
        heatResourceName: found.heatResourceName,
        ...(found.stackId ? { stackId: found.stackId } : {}),
        ...(found.member?.creation_time ? { memberCreatedAt: found.member.creation_time } : {}),
        ...(found.member && stackRefOf(found.member) ? { groupStackId: stackRefOf(found.member) } : {}),
      },
    });
    vnfcInfo.push({ id: (before && prev.vnfcInfoId(before.id)) ?? newId(), vduId, vnfcResourceInfoId: id, vnfcState: 'STARTED' });
  }

  return {
    flavourId: flavour.flavourId,
    vnfState: 'STARTED',
    scaleStatus: b.scaleStatus ?? scaleStatusForLevel(flavour, input.instantiationLevelId),
    extCpInfo,
    extVirtualLinkInfo,
    ...(extManagedVirtualLinkInfo.length ? { extManagedVirtualLinkInfo } : {}),
    vnfcResourceInfo,
    vnfVirtualLinkResourceInfo,
    virtualStorageResourceInfo,
    vnfcInfo,
    ...(input.additionalParams !== undefined ? { additionalParams: input.additionalParams } : {}),
  };
}
