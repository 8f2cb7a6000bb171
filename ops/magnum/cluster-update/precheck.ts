/** PATCH node_count: the default-worker nodegroup resized, within its min/max (Magnum: only from a *_COMPLETE status, else 409). */
import { nodegroupsOf, Refused } from '../../../store/repos/magnum/clusters';
import { badRequest, conflict } from '../../../common/http-error';
import { UPDATABLE } from '../../../model/magnum/status';
import type { MagnumPrecheckInput, MagnumStartPlan } from '../operation';
import { checkRange, ZERO_NODES } from '../shared/refusals';

/** The node_count the cluster's JSON patch sets. */
export interface NodeCountChange { nodeCount: unknown }

export async function precheckNodeCount({ db, cluster, body, minor, rollback }: MagnumPrecheckInput<NodeCountChange>): Promise<MagnumStartPlan> {
  const n = body.nodeCount;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw badRequest(`Invalid input for field/attribute node_count. Value: '${String(n)}'. Expected a non-negative integer.`);
  if (n === 0 && minor < 10) throw badRequest(ZERO_NODES);
  const worker = (await nodegroupsOf(db, cluster.id)).find((g) => g.isDefault && g.role !== 'master');
  if (!worker) throw conflict(`Cluster ${cluster.id} has no default worker nodegroup.`);
  checkRange(worker, n);
  return {
    status: 'UPDATE_IN_PROGRESS', opParams: { nodegroupId: worker.id, nodeCount: n, rollback },
    check: (c) => { if (!UPDATABLE.includes(c.status)) throw new Refused(409, `Updating a cluster when status is "${c.status}" is not supported.`); },
    nodegroups: async () => ({ ids: [worker.id], status: 'UPDATE_IN_PROGRESS' }),
  };
}
