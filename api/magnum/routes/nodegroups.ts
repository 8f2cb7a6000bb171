/**
 * /v1/clusters/{id}/nodegroups (1.9; magnum/api/controllers/v1/nodegroup.py):
 * create (202 with the nodegroup; name unique in the cluster; role master
 * refused; the cluster needs its API address), list (?role=), show (int id,
 * uuid or name), PATCH (min/max, and from 1.14 node_labels and node_taints;
 * 409 when they do not fit node_count), delete (not the default ones).
 */
import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Router, type Response } from 'express';
import { checkNodeQuota, nodegroupsOf, Refused, type MagnumClusterRow, type NodegroupRow } from '../../../common/db/repos/magnum/clusters';
import { defaultVimFor } from '../../../common/db/repos/vims';
import { badRequest, conflict, HttpError } from '../../../common/http-error';
import { NodegroupInput, NODEGROUP_READ_ONLY, PatchBody } from '../../../model/magnum/cluster';
import { NodeLabels, NodeTaints } from '../../../model/magnum/fields';
import { isInProgress, RESIZABLE } from '../../../model/magnum/status';
import { clusterFacts } from '../../../ops/magnum/shared/cluster-facts';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { magnumBody } from '../body';
import { callerOf, tokenOf } from '../caller';
import { checkFlavor, checkImage, lookupsFor } from '../cloud-checks';
import { paginate } from '../collection';
import { applyPatch } from '../json-patch';
import { findCluster, findNodegroup } from '../lookups';
import { requireVersion, versionOf } from '../microversion';
import { startMagnumOperation } from '../operations';
import { nodegroupDict } from '../views/cluster';

/** Label keys of Kubernetes' own namespaces are the kubelet's to set (as Magnum's allow list: only these). */
const K8S_NAMESPACES = /(^|\.)(kubernetes\.io|k8s\.io)\//;
const ALLOWED_K8S_LABELS = ['node-role.kubernetes.io/', 'node.kubernetes.io/'];

function checkNodeLabels(labels: Record<string, string>): void {
  for (const k of Object.keys(labels)) {
    if (K8S_NAMESPACES.test(k) && !ALLOWED_K8S_LABELS.some((p) => k.startsWith(p))) throw badRequest(`node_labels: the key ${k} is in a Kubernetes namespace (kubernetes.io, k8s.io) and cannot be set.`);
  }
}

function checkBounds(name: string, n: number, min: number, max: number | null): void {
  if (min > n) throw conflict(`min_node_count for ${name} is invalid (min_node_count (${min}) should be less or equal to node_count (${n}))`);
  if (max !== null && max < n) throw conflict(`max_node_count for ${name} is invalid (max_node_count (${max}) should be greater or equal to node_count (${n}))`);
}

/** One operation at a time per cluster (Magnum casts it and only logs the clash). */
const notBusy = (c: MagnumClusterRow) => {
  if (isInProgress(c.status)) throw new Refused(409, `Cluster ${c.name} is ${c.status}; its nodegroups can be changed once that operation has ended.`);
};
/** Nodes join a control plane that runs: a cluster whose create failed has none. */
const running = (verb: string) => (c: MagnumClusterRow) => {
  notBusy(c);
  if (!RESIZABLE.includes(c.status)) throw new Refused(409, `${verb} a nodegroup when the cluster status is "${c.status}" is not supported.`);
};

export function nodegroupsRouter(ctx: ApiContext): Router {
  const { db } = ctx;
  const r = Router();
  const base = ctx.cfg.apiBaseUrl;
  const read = authorize('nodegroups', 'read');
  const write = authorize('nodegroups', 'write');
  const cluster = (res: Response, ident: string) => { requireVersion(res, 9, 'nodegroup'); return findCluster(ctx, callerOf(res), ident); };
  const view = async (res: Response, c: MagnumClusterRow, g: NodegroupRow, detail = true) => nodegroupDict(await clusterFacts(db, c), g, base, versionOf(res), detail);

  r.get('/clusters/:cluster/nodegroups', read, async (req, res) => {
    const c = await cluster(res, String(req.params.cluster));
    const role = typeof req.query.role === 'string' ? req.query.role : undefined;
    const facts = await clusterFacts(db, c);
    const groups = facts.nodegroups.filter((g) => !role || g.role === role);
    const page = paginate(groups, req.query, {
      what: 'Nodegroup', url: `${base}/v1/clusters/${c.id}/nodegroups`, uuidOf: (g) => g.uuid,
      sortable: { id: (g) => g.id, uuid: (g) => g.uuid, name: (g) => g.name, role: (g) => g.role, node_count: (g) => g.nodeCount, created_at: (g) => g.createdAt },
    });
    res.json({ nodegroups: page.items.map((g) => nodegroupDict(facts, g, base, versionOf(res), false)), ...(page.next ? { next: page.next } : {}) });
  });
  r.get('/clusters/:cluster/nodegroups/:ng', read, async (req, res) => {
    const c = await cluster(res, String(req.params.cluster));
    res.json(await view(res, c, await findNodegroup(ctx, c, String(req.params.ng))));
  });

  r.post('/clusters/:cluster/nodegroups', write, async (req, res) => {
    const c = await cluster(res, String(req.params.cluster));
    const body = magnumBody(NodegroupInput, req.body, { resource: 'nodegroup', readOnly: NODEGROUP_READ_ONLY });
    const v = versionOf(res);
    if ((body.node_labels || body.node_taints) && v.minor < 14) throw badRequest('node_labels and node_taints need API version 1.14 or later.');
    const role = body.role ?? 'worker';
    if (role === 'master') throw badRequest('Creating master nodegroups is currently not supported.');
    const groups = await nodegroupsOf(db, c.id);
    if (groups.some((g) => g.name === body.name)) throw conflict(`A node group with name ${body.name} already exists in the cluster ${c.name}.`);
    const facts = await clusterFacts(db, c);
    if (!facts.engine?.apiAddress) throw conflict('Cluster API address is not available yet');
    const nodeCount = body.node_count ?? 1;
    if (nodeCount === 0 && v.minor < 10) throw badRequest('Resizing a nodegroup to zero is not supported in the provided microversion.');
    checkBounds(body.name, nodeCount, body.min_node_count ?? 0, body.max_node_count ?? null);
    checkNodeLabels(body.node_labels ?? {});
    const worker = groups.find((g) => g.isDefault && g.role !== 'master');
    const flavorId = body.flavor_id ?? worker?.flavorId ?? c.attrs.flavor_id ?? null;
    const imageId = body.image_id ?? worker?.imageId ?? '';
    const vim = await defaultVimFor(db, { projectId: c.projectId, all: false });
    if (!vim) throw new HttpError(503, 'No VIM is configured for this deployment.');
    const l = await lookupsFor(ctx, tokenOf(req), vim.id);
    if (body.image_id) await checkImage(l, body.image_id, 'vm');
    if (body.flavor_id) await checkFlavor(l, body.flavor_id, c.attrs.labels);
    const labels = body.labels && Object.keys(body.labels).length ? (body.merge_labels ? { ...c.attrs.labels, ...body.labels } : body.labels) : c.attrs.labels;
    const uuid = crypto.randomUUID();
    await startMagnumOperation(ctx, c.id, {
      operation: 'nodegroup-create', status: 'UPDATE_IN_PROGRESS', opParams: { nodegroup: body.name, nodeCount, role },
      check: running('Creating'),
      nodegroups: async (tx) => {
        const { db: q, t } = tx;
        await checkNodeQuota(tx, c.projectId, ctx.cfg.quotas.clusterNodes, nodeCount);
        const [made] = await q.insert(t.magnumNodegroups).values({
          uuid, clusterId: c.id, projectId: c.projectId, name: body.name, role, isDefault: false, flavorId, imageId,
          dockerVolumeSize: body.docker_volume_size ?? null, nodeCount, minNodeCount: body.min_node_count ?? 0, maxNodeCount: body.max_node_count ?? null,
          labels, nodeLabels: body.node_labels ?? {}, nodeTaints: body.node_taints ?? [], status: 'CREATE_IN_PROGRESS', version: null,
          members: Array.from({ length: nodeCount }, (_, i) => i), createdAt: new Date().toISOString(),
        }).returning();
        return { ids: [made.id], status: 'CREATE_IN_PROGRESS' };
      },
    });
    const made = (await nodegroupsOf(db, c.id)).find((g) => g.uuid === uuid)!;
    res.status(202).json(await view(res, c, made));
  });

  r.patch('/clusters/:cluster/nodegroups/:ng', write, async (req, res) => {
    const c = await cluster(res, String(req.params.cluster));
    const g = await findNodegroup(ctx, c, String(req.params.ng));
    const v = versionOf(res);
    const ops = PatchBody.safeParse(req.body);
    if (!Array.isArray(req.body) || !ops.success) throw badRequest('Invalid input for field/attribute patch. The body must be a JSON patch: a list of {op, path, value}.');
    const patchable = ['min_node_count', 'max_node_count', ...(v.minor >= 14 ? ['node_labels', 'node_taints'] : [])];
    const before = { min_node_count: g.minNodeCount, max_node_count: g.maxNodeCount, node_labels: g.nodeLabels, node_taints: g.nodeTaints };
    for (const p of ops.data) {
      const root = p.path.split('/')[1];
      if (!patchable.includes(root)) throw badRequest(`'/${root}' is an internal attribute and can not be updated`);
    }
    const after = applyPatch(before, ops.data, { dicts: ['node_labels', 'node_taints'] });
    const int = (k: string, x: unknown) => {
      if (x === null) return null;
      if (typeof x === 'string' && /^\d+$/.test(x)) return Number(x);
      if (typeof x !== 'number' || !Number.isInteger(x) || x < 0) throw badRequest(`Invalid input for field/attribute ${k}. Value: '${String(x)}'. Expected a non-negative integer.`);
      return x;
    };
    const min = int('min_node_count', after.min_node_count) ?? 0;
    const max = int('max_node_count', after.max_node_count);
    checkBounds(g.name, g.nodeCount, min, max);
    const nodeLabels = NodeLabels.safeParse(after.node_labels ?? {});
    const nodeTaints = NodeTaints.safeParse(after.node_taints ?? []);
    if (!nodeLabels.success) throw badRequest(`Invalid input for field/attribute node_labels: ${nodeLabels.error.issues[0].message}.`);
    if (!nodeTaints.success) throw badRequest(`Invalid input for field/attribute node_taints: ${nodeTaints.error.issues[0].message}.`);
    if (g.role === 'master' && nodeTaints.data.length) throw badRequest('node_taints cannot be set on a master nodegroup.');
    checkNodeLabels(nodeLabels.data);
    await startMagnumOperation(ctx, c.id, {
      operation: 'nodegroup-update', status: 'UPDATE_IN_PROGRESS', opParams: { nodegroup: g.name, minNodeCount: min, maxNodeCount: max },
      check: running('Updating'),
      nodegroups: async ({ db: q, t }) => {
        await q.update(t.magnumNodegroups).set({ minNodeCount: min, maxNodeCount: max, nodeLabels: nodeLabels.data, nodeTaints: nodeTaints.data }).where(eq(t.magnumNodegroups.id, g.id));
        return { ids: [g.id], status: 'UPDATE_IN_PROGRESS' };
      },
    });
    const fresh = (await nodegroupsOf(db, c.id)).find((x) => x.id === g.id)!;
    res.status(202).json(await view(res, c, fresh));
  });

  r.delete('/clusters/:cluster/nodegroups/:ng', write, async (req, res) => {
    const c = await cluster(res, String(req.params.cluster));
    const g = await findNodegroup(ctx, c, String(req.params.ng));
    if (g.isDefault) throw badRequest('Deleting a default nodegroup is not supported.');
    await startMagnumOperation(ctx, c.id, {
      operation: 'nodegroup-delete', status: 'UPDATE_IN_PROGRESS', opParams: { nodegroupId: g.id, nodegroup: g.name, nodeCount: 0 },
      check: notBusy,
      nodegroups: async () => ({ ids: [g.id], status: 'DELETE_IN_PROGRESS' }),
    });
    res.status(204).end();
  });

  return r;
}
