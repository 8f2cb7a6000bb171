/**
 * Resize: a worker nodegroup (the default one unless named) to node_count
 * within its min/max; nodes_to_remove must be its servers and no more than
 * the resize removes. A bad count or node 400, a busy cluster 409.
 */
import { clusterNodes } from '../../../store/repos/clusters';
import { checkNodeQuota, nodegroupsOf, Refused } from '../../../store/repos/magnum/clusters';
import { badRequest, conflict } from '../../../common/http-error';
import { RESIZABLE } from '../../../model/magnum/status';
import type { MagnumPrecheckInput, MagnumStartPlan } from '../operation';
import { checkRange, ZERO_NODES } from '../shared/refusals';
import type { ResizeInput } from './request';

export async function precheckResize({ db, cfg, cluster, body, minor, findNodegroup }: MagnumPrecheckInput<ResizeInput>): Promise<MagnumStartPlan> {
  if (body.node_count === 0 && minor < 10) throw badRequest(ZERO_NODES);
  const group = body.nodegroup ? await findNodegroup(body.nodegroup) : (await nodegroupsOf(db, cluster.id)).find((g) => g.isDefault && g.role !== 'master');
  if (!group) throw conflict(`Cluster ${cluster.id} has no default worker nodegroup.`);
  if (group.role === 'master') throw badRequest('Resizing the master nodegroup is not supported by this driver.');
  checkRange(group, body.node_count);
  const nodes = (await clusterNodes(db, cluster.id)).filter((n) => n.nodegroup === group.name);
  for (const ident of body.nodes_to_remove ?? []) {
    if (!nodes.some((n) => n.serverId === ident || n.name === ident)) throw badRequest(`nodes_to_remove: ${ident} is not a server of nodegroup ${group.name}.`);
  }
  const removing = body.nodes_to_remove?.length ?? 0;
  const removes = Math.max(group.nodeCount - body.node_count, 0);
  if (removing > removes) throw badRequest(`nodes_to_remove names ${removing} server(s) but resizing ${group.name} from ${group.nodeCount} to ${body.node_count} removes ${removes}.`);
  return {
    status: 'UPDATE_IN_PROGRESS',
    opParams: { nodegroupId: group.id, nodegroup: group.name, nodeCount: body.node_count, nodesToRemove: body.nodes_to_remove ?? [] },
    check: (c) => { if (!RESIZABLE.includes(c.status)) throw new Refused(409, `Resizing a cluster when status is "${c.status}" is not supported.`); },
    nodegroups: async (q) => {
      if (body.node_count > group.nodeCount) await checkNodeQuota(q, cluster.projectId, cfg.quotas.clusterNodes, body.node_count, group.id);
      return { ids: [group.id], status: 'UPDATE_IN_PROGRESS' };
    },
  };
}
