/**
 * A new worker nodegroup: its name unique in the cluster (409), role master
 * refused, the cluster's API answering (409), counts within bounds, node
 * labels outside Kubernetes' namespaces, the image and flavor it names found
 * in the VIM; the row is written with the operation, so a refusal writes nothing.
 */
import crypto from 'node:crypto';
import { checkNodeQuota, nodegroupsOf } from '../../../store/repos/magnum/clusters';
import { defaultVimFor } from '../../../store/repos/vims';
import { badRequest, conflict, HttpError } from '../../../common/http-error';
import type { MagnumPrecheckInput, MagnumStartPlan } from '../operation';
import { clusterFacts } from '../shared/cluster-facts';
import { checkFlavor, checkImage } from '../shared/cloud-checks';
import { checkBounds, checkNodeLabels, running, ZERO_NODES } from '../shared/refusals';
import type { NodegroupInput } from './request';

export async function precheckNodegroupCreate({ db, cfg, cluster: c, body, minor, cloud }: MagnumPrecheckInput<NodegroupInput>): Promise<MagnumStartPlan> {
  if ((body.node_labels || body.node_taints) && minor < 14) throw badRequest('node_labels and node_taints need API version 1.14 or later.');
  const role = body.role ?? 'worker';
  if (role === 'master') throw badRequest('Creating master nodegroups is currently not supported.');
  const groups = await nodegroupsOf(db, c.id);
  if (groups.some((g) => g.name === body.name)) throw conflict(`A node group with name ${body.name} already exists in the cluster ${c.name}.`);
  const facts = await clusterFacts(db, c);
  if (!facts.engine?.apiAddress) throw conflict('Cluster API address is not available yet');
  const nodeCount = body.node_count ?? 1;
  if (nodeCount === 0 && minor < 10) throw badRequest(ZERO_NODES);
  checkBounds(body.name, nodeCount, body.min_node_count ?? 0, body.max_node_count ?? null);
  checkNodeLabels(body.node_labels ?? {});
  const worker = groups.find((g) => g.isDefault && g.role !== 'master');
  const flavorId = body.flavor_id ?? worker?.flavorId ?? c.attrs.flavor_id ?? null;
  const imageId = body.image_id ?? worker?.imageId ?? '';
  const vim = await defaultVimFor(db, { projectId: c.projectId, all: false });
  if (!vim) throw new HttpError(503, 'No VIM is configured for this deployment.');
  if (body.image_id || body.flavor_id) {
    const l = await cloud(vim.id);
    if (body.image_id) await checkImage(l, body.image_id, 'vm');
    if (body.flavor_id) await checkFlavor(l, body.flavor_id, c.attrs.labels);
  }
  const labels = body.labels && Object.keys(body.labels).length ? (body.merge_labels ? { ...c.attrs.labels, ...body.labels } : body.labels) : c.attrs.labels;
  const uuid = crypto.randomUUID();
  return {
    status: 'UPDATE_IN_PROGRESS', opParams: { nodegroup: body.name, nodeCount, role },
    check: running('Creating'),
    nodegroups: async (tx) => {
      const { db: q, t } = tx;
      await checkNodeQuota(tx, c.projectId, cfg.quotas.clusterNodes, nodeCount);
      const [made] = await q.insert(t.magnumNodegroups).values({
        uuid, clusterId: c.id, projectId: c.projectId, name: body.name, role, isDefault: false, flavorId, imageId,
        dockerVolumeSize: body.docker_volume_size ?? null, nodeCount, minNodeCount: body.min_node_count ?? 0, maxNodeCount: body.max_node_count ?? null,
        labels, nodeLabels: body.node_labels ?? {}, nodeTaints: body.node_taints ?? [], status: 'CREATE_IN_PROGRESS', version: null,
        members: Array.from({ length: nodeCount }, (_, i) => i), createdAt: new Date().toISOString(),
      }).returning();
      return { ids: [made.id], status: 'CREATE_IN_PROGRESS' };
    },
    shows: uuid,
  };
}
