/**
 * Everything the simulator remembers. It is plain JSON so StateStore can save
 * it as one document and restore it to roll back a failed request.
 */

export type StackAction = 'CREATE' | 'UPDATE' | 'DELETE';
export type ResourceAction = StackAction | 'CHECK';
export type Status = 'IN_PROGRESS' | 'COMPLETE' | 'FAILED';

export type HotTemplate = Record<string, unknown>;

/** Environment pieces that apply to the whole stack tree (Heat propagates them to nested stacks). */
export interface StackEnvironment {
  parameters: Record<string, unknown>;
  parameter_defaults: Record<string, unknown>;
  resource_registry: Record<string, unknown>;
}

export interface StackOutput {
  key: string;
  value: unknown;
  description: string;
  error?: string;
}

export interface EventRecord {
  id: string;
  time: string;
  resourceName: string;
  physicalId: string;
  resourceType: string;
  action: string;
  status: Status;
  reason: string;
}

/** An operation started on a top-level stack and not finished yet. */
export interface PendingOperation {
  action: StackAction;
  /** Epoch ms at which the operation completes (absent while hung by a fault). */
  dueAt?: number;
  /** Set while a 'hang' fault holds the operation; removing the fault releases it. */
  hangFaultId?: string;
  /** Set by a 'fail' fault: the operation ends *_FAILED with this reason. */
  failReason?: string;
  /** Epoch ms after which a hung operation fails with "Timed out" (from timeout_mins). */
  timeoutAt?: number;
}

export interface ResourceRecord {
  name: string;
  /** The type as written in the template. */
  type: string;
  /** What implements it: a built-in type, or "file:<key of files>" for a template resource. */
  impl: string;
  physicalId: string;
  action: ResourceAction;
  status: Status;
  reason: string;
  /** Properties after intrinsic functions were resolved. */
  props: Record<string, unknown>;
  /** Names of resources of the same stack this one depends on. */
  dependsOn: string[];
  /** For template resources and groups: the nested stack holding the members. */
  nestedStackId?: string;
  /** Type-specific bookkeeping (physical name, implicit ports, generated values). */
  data: Record<string, unknown>;
  /** A failure discovered while planning (e.g. no free IP); applied when the operation completes. */
  pendingFailure?: string;
  createdAt: string;
  updatedAt: string;
}

export interface StackRecord {
  id: string;
  name: string;
  projectId: string;
  description: string;
  /** Top-level stack of the tree; operations and timers live there. */
  rootId: string;
  parentId?: string;
  /** Name of the resource in the parent stack that owns this nested stack. */
  parentResource?: string;
  action: StackAction;
  status: Status;
  reason: string;
  template: HotTemplate;
  files: Record<string, string>;
  environment: StackEnvironment;
  /** Parameter values as supplied by the client (kept for PATCH merges). */
  userParams: Record<string, unknown>;
  /** Parameter values after defaults and type coercion. */
  params: Record<string, unknown>;
  paramTypes: Record<string, string>;
  outputs: StackOutput[];
  resources: ResourceRecord[];
  /** Events since the last save; StateStore.save moves them to its event log (read them with eventsOf). */
  events: EventRecord[];
  timeoutMins?: number;
  disableRollback: boolean;
  createdAt: string;
  updatedAt?: string;
  deletedAt?: string;
  pending?: PendingOperation;
}

export interface TokenRecord {
  id: string;
  userId: string;
  projectId?: string;
  methods: string[];
  issuedAt: number;
  expiresAt: number;
}

export type FaultOperation = 'create' | 'update' | 'delete';

export interface FaultRecord {
  id: string;
  operation: FaultOperation;
  stackName?: string;
  mode: 'fail' | 'hang';
  reason?: string;
  times: number;
  /** How many operations this fault has already hit. */
  used: number;
  createdAt: string;
}

export interface NetworkRecord {
  id: string;
  name: string;
}

export interface SubnetRecord {
  id: string;
  name: string;
  networkId: string;
  cidr: string;
  gatewayIp: string;
  /** Addresses in use, mapped to the port holding them. */
  used: Record<string, string>;
}

export interface FixedIp {
  ip_address: string;
  subnet_id: string;
}

export interface PortRecord {
  id: string;
  networkId: string;
  /** Name under which servers report the address (network name, or the id/name the client gave). */
  networkLabel: string;
  fixedIps: FixedIp[];
  mac: string;
  deviceId: string;
  /** True when the addresses came from the SSH-reachable pool of an external network. */
  external: boolean;
}

/** The simulated Neutron: networks and subnets created by stacks, ports and their addresses. */
export interface NetworkState {
  networks: Record<string, NetworkRecord>;
  subnets: Record<string, SubnetRecord>;
  ports: Record<string, PortRecord>;
  /** Addresses handed out from the sshCidr pool, mapped to the port holding them. */
  externalUsed: Record<string, string>;
}

export interface SimState {
  version: 1;
  stacks: Record<string, StackRecord>;
  network: NetworkState;
  tokens: Record<string, TokenRecord>;
  faults: FaultRecord[];
}

export function emptyState(): SimState {
  return {
    version: 1,
    stacks: {},
    network: { networks: {}, subnets: {}, ports: {}, externalUsed: {} },
    tokens: {},
    faults: [],
  };
}
