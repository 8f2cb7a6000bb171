/** The Nova servers of the simulated cloud as the SSH side sees them: where, since when, reachable or not. */
import { ipToInt, parseCidr } from '../hot/network';
import type { ResourceRecord, SimState, StackRecord } from '../state/model';
import { isDeleted } from '../state/stacks';
import { nameOf } from '../hot/behaviour';

export interface SimServer {
  id: string;
  name: string;
  stackId: string;
  stackName: string;
  rootStackId: string;
  resourceName: string;
  status: string;
  /** Addresses by network label. */
  addresses: Record<string, string[]>;
  /** First address in the SSH pool, where the server answers SSH. */
  sshAddress: string | null;
  /** Booted (create finished) and not being deleted: the SSH endpoint is up. */
  reachable: boolean;
  resource: ResourceRecord;
}

const SERVER_TYPE = 'OS::Nova::Server';

function addressesOf(state: SimState, res: ResourceRecord): { label: string; ip: string }[] {
  const out: { label: string; ip: string }[] = [];
  for (const id of (res.data.portIds as string[] | undefined) ?? []) {
    const port = state.network.ports[id];
    for (const fixed of port?.fixedIps ?? []) out.push({ label: port.networkLabel, ip: fixed.ip_address });
  }
  return out;
}

function inPool(ip: string, sshCidr: string): boolean {
  const pool = parseCidr(sshCidr);
  const n = ipToInt(ip);
  return pool !== undefined && n !== undefined && n >= pool.base && n < pool.base + pool.size;
}

/** A server is up once its create finished (not failed) and until its deletion starts. */
function isReachable(stack: StackRecord, res: ResourceRecord): boolean {
  if (isDeleted(stack) || res.action === 'DELETE') return false;
  if (res.action === 'CREATE' && res.status !== 'COMPLETE') return false;
  return true;
}

/** Every server resource of every live stack. */
export function listServers(state: SimState, sshCidr: string): SimServer[] {
  const out: SimServer[] = [];
  for (const stack of Object.values(state.stacks)) {
    if (isDeleted(stack)) continue;
    for (const res of stack.resources) {
      if (res.impl !== SERVER_TYPE) continue;
      const addrs = addressesOf(state, res);
      const addresses: Record<string, string[]> = {};
      for (const a of addrs) (addresses[a.label] ??= []).push(a.ip);
      out.push({
        id: res.physicalId,
        name: nameOf(res),
        stackId: stack.id,
        stackName: stack.name,
        rootStackId: stack.rootId,
        resourceName: res.name,
        status: `${res.action}_${res.status}`,
        addresses,
        sshAddress: addrs.find((a) => inPool(a.ip, sshCidr))?.ip ?? null,
        reachable: isReachable(stack, res),
        resource: res,
      });
    }
  }
  return out.sort((a, b) => a.resource.createdAt.localeCompare(b.resource.createdAt));
}
