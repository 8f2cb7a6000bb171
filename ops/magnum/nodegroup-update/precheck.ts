/**
 * A nodegroup's JSON patch: min/max (409 when they do not fit node_count),
 * and from 1.14 node_labels and node_taints (no taints on masters, no labels
 * in Kubernetes' namespaces); any other attribute 400. The new values are
 * written with the operation, whose workflow applies them to the nodes.
 */
import { eq } from 'drizzle-orm';
import { badRequest } from '../../../common/http-error';
import type { PatchOp } from '../../../model/magnum/cluster';
import { NodeLabels, NodeTaints } from '../../../model/magnum/fields';
import { applyPatch } from '../../../model/magnum/json-patch';
import type { MagnumPrecheckInput, MagnumStartPlan } from '../operation';
import { checkBounds, checkNodeLabels, running } from '../shared/refusals';

const int = (k: string, x: unknown) => {
  if (x === null) return null;
  if (typeof x === 'string' && /^\d+$/.test(x)) return Number(x);
  if (typeof x !== 'number' || !Number.isInteger(x) || x < 0) throw badRequest(`Invalid input for field/attribute ${k}. Value: '${String(x)}'. Expected a non-negative integer.`);
  return x;
};

export async function precheckNodegroupUpdate({ nodegroup: g, body, minor }: MagnumPrecheckInput<PatchOp[]>): Promise<MagnumStartPlan> {
  if (!g) throw new Error('nodegroup-update is routed with :nodegroup');
  const patchable = ['min_node_count', 'max_node_count', ...(minor >= 14 ? ['node_labels', 'node_taints'] : [])];
  const before = { min_node_count: g.minNodeCount, max_node_count: g.maxNodeCount, node_labels: g.nodeLabels, node_taints: g.nodeTaints };
  for (const p of body) {
    const root = p.path.split('/')[1];
    if (!patchable.includes(root)) throw badRequest(`'/${root}' is an internal attribute and can not be updated`);
  }
  const after = applyPatch(before, body, { dicts: ['node_labels', 'node_taints'] });
  const min = int('min_node_count', after.min_node_count) ?? 0;
  const max = int('max_node_count', after.max_node_count);
  checkBounds(g.name, g.nodeCount, min, max);
  const nodeLabels = NodeLabels.safeParse(after.node_labels ?? {});
  const nodeTaints = NodeTaints.safeParse(after.node_taints ?? []);
  if (!nodeLabels.success) throw badRequest(`Invalid input for field/attribute node_labels: ${nodeLabels.error.issues[0].message}.`);
  if (!nodeTaints.success) throw badRequest(`Invalid input for field/attribute node_taints: ${nodeTaints.error.issues[0].message}.`);
  if (g.role === 'master' && nodeTaints.data.length) throw badRequest('node_taints cannot be set on a master nodegroup.');
  checkNodeLabels(nodeLabels.data);
  return {
    status: 'UPDATE_IN_PROGRESS', opParams: { nodegroup: g.name, minNodeCount: min, maxNodeCount: max },
    check: running('Updating'),
    nodegroups: async ({ db: q, t }) => {
      await q.update(t.magnumNodegroups).set({ minNodeCount: min, maxNodeCount: max, nodeLabels: nodeLabels.data, nodeTaints: nodeTaints.data }).where(eq(t.magnumNodegroups.id, g.id));
      return { ids: [g.id], status: 'UPDATE_IN_PROGRESS' };
    },
    shows: g.uuid,
  };
}
