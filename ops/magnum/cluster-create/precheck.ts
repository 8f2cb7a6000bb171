/**
 * What POST /v1/clusters decides before anything is written (magnum/api/
 * controllers/v1/cluster.py post, api/validation.py, attr_validator.py):
 * the template (400 before 1.10, 404 from it, 403 when hidden), counts,
 * labels (the template's, the request's, or merged), inherited flavors and
 * networks, and every VIM reference checked. Returns the rows to write.
 */
import crypto from 'node:crypto';
import type { MagnumClusterInsert, NodegroupInsert } from '../../../store/repos/magnum/clusters';
import { templateById, type TemplateRow } from '../../../store/repos/magnum/templates';
import type { VimRow } from '../../../store/repos/vims';
import { badRequest, forbidden, HttpError } from '../../../common/http-error';
import { activeTraceId } from '../../../common/tracing';
import type { Labels } from '../../../model/magnum/fields';
import { generatedName, isUuidLike } from '../../../model/magnum/names';
import type { MagnumPrecheckInput } from '../operation';
import { checkExternalNetwork, checkFixedNetwork, checkFixedSubnet, checkFlavor, checkImage, checkKeypair } from '../shared/cloud-checks';
import { ZERO_NODES } from '../shared/refusals';
import type { ClusterInput } from './request';

const DEFAULT_FLAVOR = 'm1.small';

/** The template a cluster is made from: 400 before 1.10 when unknown (ct_not_found_to_bad_request), 404 from it; hidden: admins only. */
async function templateForCluster({ db, minor, findTemplate }: ClusterCreateInput, ident: string): Promise<TemplateRow> {
  try {
    return await findTemplate(ident);
  } catch (e) {
    if (!(e instanceof HttpError) || e.status !== 404) throw e;
    const hidden = isUuidLike(ident) ? await templateById(db, ident.toLowerCase()) : undefined;
    if (hidden?.public && hidden.hidden) throw forbidden(`Not authorized to create a cluster from the hidden cluster template ${ident}.`);
    throw new HttpError(minor < 10 ? 400 : 404, `ClusterTemplate ${ident} could not be found.`);
  }
}

/** Magnum's label bookkeeping: what the cluster overrides, adds and leaves out of its template's labels. */
export function labelsOf(template: Labels, given: Labels | undefined, merge: boolean) {
  const labels = given && Object.keys(given).length ? (merge ? { ...template, ...given } : given) : template;
  const pick = (pred: (k: string) => boolean, from: Labels) => Object.fromEntries(Object.entries(from).filter(([k]) => pred(k)));
  return {
    labels,
    labels_overridden: pick((k) => k in template && String(template[k]) !== String(labels[k]), labels),
    labels_added: pick((k) => !(k in template), labels),
    labels_skipped: pick((k) => !(k in labels), template),
  };
}

/** What a create is checked with: no cluster yet, the VIM it will be made on. */
export type ClusterCreateInput = Omit<MagnumPrecheckInput<ClusterInput>, 'cluster' | 'nodegroup' | 'findNodegroup' | 'rollback' | 'caller'> & {
  caller: { projectId: string; userId: string; isAdmin: boolean };
  /** The deployment's VIM for the project. */
  vim: VimRow;
  /** The VIM row the cluster will act with (on the shared VIM, the project's trust-scoped access: api/vim-access.ts), asked once all else is checked. */
  acting(vim: VimRow): Promise<string>;
};

export async function planCluster(o: ClusterCreateInput): Promise<{ row: MagnumClusterInsert; nodegroups: Omit<NodegroupInsert, 'clusterId'>[] }> {
  const { caller, body: input, minor } = o;
  const template = await templateForCluster(o, input.cluster_template_id);
  const t = template.attrs;
  const nodeCount = input.node_count ?? 1;
  const masterCount = input.master_count ?? 1;
  if (nodeCount === 0 && minor < 10) throw badRequest(ZERO_NODES);
  if (masterCount % 2 === 0) throw badRequest(`master nodegroup size of ${masterCount} is invalid, size cannot be an even number.`);
  const masterLb = input.master_lb_enabled ?? t.master_lb_enabled;
  if (masterCount > 1 && !masterLb) throw badRequest('master_count must be 1 when master_lb_enabled is False');
  const flavor = input.flavor_id ?? t.flavor_id ?? DEFAULT_FLAVOR;
  const masterFlavor = input.master_flavor_id ?? t.master_flavor_id ?? flavor;
  const fixedNetwork = input.fixed_network ?? t.fixed_network;
  const fixedSubnet = input.fixed_subnet ?? t.fixed_subnet;
  const labels = labelsOf(t.labels, input.labels, input.merge_labels ?? false);
  const keypair = input.keypair ?? t.keypair_id;
  // the VIM references, checked with the caller's token where the VIM shares the API's Keystone
  const l = await o.cloud(o.vim.id);
  const image = await checkImage(l, t.image_id, t.server_type);
  const flavorRow = await checkFlavor(l, flavor, labels.labels);
  const masterFlavorRow = masterFlavor === flavor ? flavorRow : await checkFlavor(l, masterFlavor, labels.labels);
  const network = fixedNetwork ? await checkFixedNetwork(l, fixedNetwork) : t.external_network_id ? await checkExternalNetwork(l, t.external_network_id) : undefined;
  if (!network) throw badRequest('The cluster has no network: its template names neither external_network_id nor fixed_network, and the request no fixed_network.');
  const subnet = fixedSubnet ? await checkFixedSubnet(l, fixedSubnet) : undefined;
  // the API load balancer's VIP and members sit on one subnet: the fixed one, else the network's first (as Magnum's)
  const lbSubnetId = masterLb ? subnet?.id ?? network.subnets[0] : undefined;
  if (masterLb && !lbSubnetId) throw badRequest(`The cluster's network ${network.id} has no subnet for the API load balancer (master_lb_enabled): give fixed_subnet or add a subnet.`);
  const key = keypair ? await checkKeypair(l, keypair) : undefined;
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const group = (name: string, role: string, count: number, flavorId: string) => ({
    uuid: crypto.randomUUID(), projectId: caller.projectId, name, role, isDefault: true, flavorId, imageId: t.image_id,
    dockerVolumeSize: input.docker_volume_size ?? t.docker_volume_size ?? null, nodeCount: count, minNodeCount: role === 'master' ? 1 : 0,
    maxNodeCount: null, labels: labels.labels, nodeLabels: {}, nodeTaints: [], status: 'CREATE_IN_PROGRESS' as const,
    version: null, members: Array.from({ length: count }, (_, i) => i), createdAt: now,
  });
  const createTimeout = input.create_timeout || 60;
  const vimId = await o.acting(o.vim);
  return {
    row: {
      id, projectId: caller.projectId, userId: caller.userId, name: input.name ?? generatedName('cluster'), templateId: template.id,
      status: 'CREATE_IN_PROGRESS', statusReason: null, stackId: null, operation: 'cluster-create', operationId: `magnum-cluster-create-${id}`,
      opNodegroups: [], opParams: { nodeCount, masterCount, createTimeout }, workflowStarted: false, traceId: activeTraceId() ?? null, createdAt: now,
      attrs: {
        keypair, ...labels, create_timeout: createTimeout, discovery_url: input.discovery_url,
        docker_volume_size: input.docker_volume_size ?? t.docker_volume_size, flavor_id: flavor, master_flavor_id: masterFlavor,
        fixed_network: fixedNetwork, fixed_subnet: fixedSubnet, floating_ip_enabled: input.floating_ip_enabled ?? t.floating_ip_enabled,
        master_lb_enabled: masterLb, merge_labels: input.merge_labels ?? false,
        resolved: {
          vimId, imageId: image.id, flavorId: flavorRow.id, masterFlavorId: masterFlavorRow.id, networkId: network.id,
          subnetId: subnet?.id, keypairPublicKey: key?.publicKey || undefined, ...(lbSubnetId ? { apiLbSubnetId: lbSubnetId } : {}),
        },
      },
    },
    nodegroups: [group('default-master', 'master', masterCount, masterFlavor), group('default-worker', 'worker', nodeCount, flavor)],
  };
}
