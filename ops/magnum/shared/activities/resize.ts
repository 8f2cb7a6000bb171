/**
 * A nodegroup's new size, planned once per operation (the plan lands in the
 * workflow's history): which members leave (the servers the request named,
 * then the highest indexes, as Heat's own scale-in) and which indexes new
 * ones get. Names in nodes_to_remove may be server ids or node names. A
 * replacement (auto-healing) keeps the count: the named leave, new ones come.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../../../../lcm-activities/deps';
import { nodeRefOf } from '../../../../cluster/activities/access';
import { clusterNodes } from '../../../../store/repos/clusters';
import { nodegroupsOf } from '../../../../store/repos/magnum/clusters';
import { StackDriver } from '../../../../infra/stack-driver';
import type { ResizePlan } from '../contracts';
import { loadMagnum, stackRefOf } from './cluster';

/** replace: the named servers leave and as many new ones come (auto-healing); else they leave only as far as the count drops. */
export interface ResizeParams { nodegroupId: number; nodeCount: number; nodesToRemove?: string[]; replace?: boolean }

export function resizeActivities(deps: ActivityDeps) {
  const { db, box } = deps;
  const driver = StackDriver.forStore(db, box);
  return {
    async planResize({ clusterId }: { clusterId: string }): Promise<ResizePlan> {
      const row = await loadMagnum(deps, clusterId);
      const p = row.opParams as unknown as ResizeParams;
      const group = (await nodegroupsOf(db, clusterId)).find((g) => g.id === p.nodegroupId);
      if (!group) throw ApplicationFailure.nonRetryable(`nodegroup ${p.nodegroupId} of cluster ${row.name} is gone`, 'InvalidInput');
      const nodes = (await clusterNodes(db, clusterId)).filter((n) => n.nodegroup === group.name);
      const ref = stackRefOf(row);
      const stack = await driver.find(ref);
      const indexOfServer = new Map<string, number>();
      for (const r of stack ? await driver.resources({ ...ref, id: stack.id }, 0) : []) {
        const m = /^(.+)-(\d+)$/.exec(r.resource_name);
        if (m && m[1] === group.name && r.physical_resource_id) indexOfServer.set(r.physical_resource_id, Number(m[2]));
      }
      const members = [...group.members].sort((a, b) => a - b);
      const leaving: number[] = [];
      for (const ident of p.nodesToRemove ?? []) {
        const node = nodes.find((n) => n.serverId === ident || n.name === ident);
        const index = node ? indexOfServer.get(node.serverId) : indexOfServer.get(ident);
        if (index !== undefined && members.includes(index) && !leaving.includes(index)) leaving.push(index);
      }
      const excess = members.length - p.nodeCount;
      for (const i of [...members].reverse()) if (leaving.length < excess && !leaving.includes(i)) leaving.push(i);
      // a replacement (auto-healing) takes out every server named; a resize only as many as the count drops
      const gone = p.replace ? leaving : leaving.slice(0, Math.max(excess, 0));
      const kept = members.filter((i) => !gone.includes(i));
      const added = Math.max(p.nodeCount - kept.length, 0);
      const next = Math.max(-1, ...members) + 1;
      const newMembers = [...kept, ...Array.from({ length: added }, (_, k) => next + k)];
      const removedIdx = members.filter((i) => !newMembers.includes(i));
      const serverOf = new Map([...indexOfServer].map(([s, i]) => [i, s]));
      const removed = nodes.filter((n) => removedIdx.some((i) => serverOf.get(i) === n.serverId)).map(nodeRefOf);
      return { nodegroupId: group.id, nodegroup: group.name, removed, before: members, members: newMembers, added };
    },
  };
}
