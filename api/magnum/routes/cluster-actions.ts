/**
 * /v1/clusters/{id}/actions (magnum/api/controllers/v1/cluster_actions.py):
 * resize (1.7: a nodegroup to node_count, nodes_to_remove first, within its
 * min/max) and upgrade (1.8: onto another template, Kubernetes up by one
 * minor version at most, as kubeadm upgrades; `?rollback=True` as on PATCH:
 * a failure takes the upgraded nodes back). Every refusal is answered at
 * once: a bad count or node 400, a busy cluster 409.
 */
import { Router } from 'express';
import { clusterById, clusterNodes } from '../../../common/db/repos/clusters';
import { checkNodeQuota, nodegroupsOf, Refused } from '../../../common/db/repos/magnum/clusters';
import { badRequest, conflict } from '../../../common/http-error';
import { ResizeInput, UpgradeInput } from '../../../model/magnum/cluster';
import { RESIZABLE, UPGRADABLE } from '../../../model/magnum/status';
import { upgradePathProblem } from '../../../ops/magnum/shared/upgrade-path';
import { settingsFromLabels } from '../../../ops/magnum/shared/settings';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { magnumBody, magnumBoolQuery } from '../body';
import { callerOf } from '../caller';
import { ZERO_NODES } from '../cluster-create';
import { findCluster, findNodegroup, findTemplate } from '../lookups';
import { requireVersion, versionOf, VersionNotAcceptable } from '../microversion';
import { startMagnumOperation } from '../operations';

export function clusterActionsRouter(ctx: ApiContext): Router {
  const { db } = ctx;
  const r = Router();
  const write = authorize('clusters', 'write');

  r.post('/clusters/:ident/actions/resize', write, async (req, res) => {
    requireVersion(res, 7, 'resize');
    const cluster = await findCluster(ctx, callerOf(res), String(req.params.ident));
    const body = magnumBody(ResizeInput, req.body, { resource: 'cluster_resize_req' });
    if (body.node_count === 0 && versionOf(res).minor < 10) throw badRequest(ZERO_NODES);
    const group = body.nodegroup ? await findNodegroup(ctx, cluster, body.nodegroup) : (await nodegroupsOf(db, cluster.id)).find((g) => g.isDefault && g.role !== 'master');
    if (!group) throw conflict(`Cluster ${cluster.id} has no default worker nodegroup.`);
    if (group.role === 'master') throw badRequest('Resizing the master nodegroup is not supported by this driver.');
    if (body.node_count < group.minNodeCount || (group.maxNodeCount !== null && body.node_count > group.maxNodeCount)) {
      throw badRequest(`Resizing ${group.name} outside the allowed range: min_node_count = ${group.minNodeCount}, max_node_count = ${group.maxNodeCount ?? 'None'}`);
    }
    const nodes = (await clusterNodes(db, cluster.id)).filter((n) => n.nodegroup === group.name);
    for (const ident of body.nodes_to_remove ?? []) {
      if (!nodes.some((n) => n.serverId === ident || n.name === ident)) throw badRequest(`nodes_to_remove: ${ident} is not a server of nodegroup ${group.name}.`);
    }
    const removing = body.nodes_to_remove?.length ?? 0;
    if (removing > Math.max(group.nodeCount - body.node_count, 0)) {
      throw badRequest(`nodes_to_remove names ${removing} server(s) but resizing ${group.name} from ${group.nodeCount} to ${body.node_count} removes ${Math.max(group.nodeCount - body.node_count, 0)}.`);
    }
    await startMagnumOperation(ctx, cluster.id, {
      operation: 'cluster-resize', status: 'UPDATE_IN_PROGRESS',
      opParams: { nodegroupId: group.id, nodegroup: group.name, nodeCount: body.node_count, nodesToRemove: body.nodes_to_remove ?? [] },
      check: (c) => { if (!RESIZABLE.includes(c.status)) throw new Refused(409, `Resizing a cluster when status is "${c.status}" is not supported.`); },
      nodegroups: async (q) => {
        if (body.node_count > group.nodeCount) await checkNodeQuota(q, cluster.projectId, ctx.cfg.quotas.clusterNodes, body.node_count, group.id);
        return { ids: [group.id], status: 'UPDATE_IN_PROGRESS' };
      },
    });
    res.status(202).json({ uuid: cluster.id });
  });

  r.post('/clusters/:ident/actions/upgrade', write, async (req, res) => {
    const v = versionOf(res);
    if (v.minor === 7) throw badRequest('ClusterUpgradeNotSupported: upgrading a cluster needs API version 1.8 or later.');
    if (v.minor < 8) throw new VersionNotAcceptable(`Version 1.${v.minor} was requested but the requested API upgrade is not supported for this version.`);
    const caller = callerOf(res);
    const cluster = await findCluster(ctx, caller, String(req.params.ident));
    const rollback = magnumBoolQuery(req.query.rollback, 'rollback');
    const body = magnumBody(UpgradeInput, req.body, { resource: 'cluster_upgrade_req' });
    const template = await findTemplate(ctx, caller, body.cluster_template);
    const group = body.nodegroup ? await findNodegroup(ctx, cluster, body.nodegroup) : undefined;
    if (group && !group.isDefault && template.id !== cluster.templateId) {
      throw conflict(`Cluster template ${template.id} is not valid for upgrade: a non-default nodegroup can only be upgraded to the cluster's template ${cluster.templateId}.`);
    }
    if (!UPGRADABLE.includes(cluster.status)) throw badRequest(`Upgrading a cluster when status is "${cluster.status}" is not supported.`);
    // the version the cluster runs (the engine's), not the one it was made with
    const current = (await clusterById(db, cluster.id))?.settings.kubeVersion ?? settingsFromLabels(cluster.attrs.labels, undefined, undefined).kubeVersion;
    const target = settingsFromLabels(template.attrs.labels, undefined, undefined).kubeVersion;
    const refused = current === target ? undefined : upgradePathProblem(current, target);
    if (refused) throw badRequest(refused);
    await startMagnumOperation(ctx, cluster.id, {
      operation: 'cluster-upgrade', status: 'UPDATE_IN_PROGRESS',
      opParams: { templateId: template.id, templateName: template.name, nodegroupId: group?.id, nodegroup: group?.name, version: `v${target}`, maxBatchSize: body.max_batch_size ?? 1, rollback },
      check: (c) => { if (!UPGRADABLE.includes(c.status)) throw new Refused(400, `Upgrading a cluster when status is "${c.status}" is not supported.`); },
      nodegroups: async (_q, _c, groups) => ({ ids: group ? [group.id] : groups.map((g) => g.id), status: 'UPDATE_IN_PROGRESS' }),
    });
    res.status(202).json({ uuid: cluster.id });
  });

  return r;
}

