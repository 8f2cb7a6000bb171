/**
 * ETSI SOL003 InstantiatedVnfInfo (VnfInstance.instantiatedVnfInfo) as this
 * orchestrator fills it for OpenStack: the subset Tacker shows in
 * `openstack vnflcm show`, plus currentVnfExtCpData and
 * extManagedVirtualLinkInfo that later operations need.
 */

export interface ResourceHandle {
  vimConnectionId: string;
  resourceId: string;
  vimLevelResourceType: string;
}

export interface CpProtocolInfo {
  layerProtocol: 'IP_OVER_ETHERNET';
  ipOverEthernet?: {
    macAddress?: string;
    segmentationId?: string;
    ipAddresses?: { type: string; addresses?: string[]; isDynamic?: boolean; addressRange?: unknown; subnetId?: string }[];
  };
}

export interface VnfExtCpInfo {
  id: string;
  cpdId: string;
  /** The cpConfig key this CP instance was built from, when the request keyed them. */
  cpConfigId?: string;
  extLinkPortId?: string;
  associatedVnfcCpId: string;
  cpProtocolInfo: CpProtocolInfo[];
}

export interface ExtLinkPortInfo {
  id: string;
  resourceHandle: ResourceHandle;
  /** The VnfExtCpInfo id of the CP instance on this port. */
  cpInstanceId: string;
}

export interface ExtVirtualLinkInfo {
  id: string;
  resourceHandle: ResourceHandle;
  extLinkPorts?: ExtLinkPortInfo[];
  /** The extCps of the request, kept for scale/heal/change_ext_conn. */
  currentVnfExtCpData: { cpdId: string; cpConfig?: unknown }[];
}

export interface VnfcCpInfo {
  id: string;
  cpdId: string;
  vnfExtCpId?: string;
  vnfLinkPortId?: string;
  cpProtocolInfo: CpProtocolInfo[];
}

export interface VnfcResourceInfo {
  id: string;
  vduId: string;
  computeResource: ResourceHandle;
  storageResourceIds: string[];
  vnfcCpInfo: VnfcCpInfo[];
  metadata: {
    /** The VNFC's identity in the stack: "VDU1-0", an ASG member name, or the server's own name. */
    heatResourceName: string;
    /** "stack_name/stack_id" of the (nested) stack holding the server. */
    stackId?: string;
    /** When Heat created the AutoScalingGroup member: a group scaled in loses its oldest members first. */
    memberCreatedAt?: string;
    /** "stack_name/stack_id" of the group's own stack, which holds the member resource. */
    groupStackId?: string;
  };
}

export interface VnfLinkPortInfo {
  id: string;
  resourceHandle: ResourceHandle;
  /** The VnfcCpInfo id on this port. */
  cpInstanceId: string;
  cpInstanceType: 'VNFC_CP';
}

export interface VnfVirtualLinkResourceInfo {
  id: string;
  vnfVirtualLinkDescId: string;
  networkResource: ResourceHandle;
  vnfLinkPorts: VnfLinkPortInfo[];
}

export interface ExtManagedVirtualLinkInfo {
  id: string;
  vnfVirtualLinkDescId: string;
  networkResource: ResourceHandle;
  vnfLinkPorts: VnfLinkPortInfo[];
}

export interface VirtualStorageResourceInfo {
  id: string;
  virtualStorageDescId: string;
  storageResource: ResourceHandle;
}

export interface VnfcInfo {
  id: string;
  vduId: string;
  vnfcResourceInfoId: string;
  vnfcState: 'STARTED' | 'STOPPED';
}

export interface InstantiatedVnfInfo {
  flavourId: string;
  vnfState: 'STARTED' | 'STOPPED';
  scaleStatus: { aspectId: string; scaleLevel: number }[];
  extCpInfo: VnfExtCpInfo[];
  extVirtualLinkInfo: ExtVirtualLinkInfo[];
  extManagedVirtualLinkInfo?: ExtManagedVirtualLinkInfo[];
  vnfcResourceInfo: VnfcResourceInfo[];
  vnfVirtualLinkResourceInfo: VnfVirtualLinkResourceInfo[];
  virtualStorageResourceInfo: VirtualStorageResourceInfo[];
  vnfcInfo: VnfcInfo[];
  additionalParams?: Record<string, unknown>;
}
