/** What the cluster engine's workflows and activities pass each other: ids and addresses, never secrets. */
import type { JoinState, NodeRole, NodeStep } from '../model';
export type { RemovalStep } from '../model';
import type { LcmHook } from '../../vnfpkg/vnfd-model';

export interface NodeRef {
  serverId: string;
  /** The Kubernetes node name. */
  name: string;
  address: string;
  role: NodeRole;
  nodegroup: string;
  joinState: JoinState;
  /** The VNFC this node is (Tacker's Kubernetes VNF). */
  vnfcId?: string;
}

export interface ClusterNodes { clusterId: string; nodes: NodeRef[] }

/** A Tacker hook run as a child workflow: the op occ it belongs to and the VNFCs it is about. */
export interface ClusterHookInput { opOccId: string; hook: LcmHook; vnfcIds?: string[] }

export interface NodeStepInput { clusterId: string; serverId: string; step: NodeStep }
