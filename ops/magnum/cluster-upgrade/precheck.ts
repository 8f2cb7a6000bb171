/**
 * Upgrade onto another template: Kubernetes up by one minor version at most,
 * as kubeadm upgrades (a downgrade or a skipped minor 400 at once); a
 * non-default nodegroup only onto the cluster's own template (409).
 */
import { clusterById } from '../../../store/repos/clusters';
import { Refused } from '../../../store/repos/magnum/clusters';
import { badRequest, conflict } from '../../../common/http-error';
import { UPGRADABLE } from '../../../model/magnum/status';
import type { MagnumPrecheckInput, MagnumStartPlan } from '../operation';
import { settingsFromLabels } from '../shared/settings';
import { upgradePathProblem } from '../shared/upgrade-path';
import type { UpgradeInput } from './request';

export async function precheckUpgrade({ db, cluster, body, rollback, findNodegroup, findTemplate }: MagnumPrecheckInput<UpgradeInput>): Promise<MagnumStartPlan> {
  const template = await findTemplate(body.cluster_template);
  const group = body.nodegroup ? await findNodegroup(body.nodegroup) : undefined;
  if (group && !group.isDefault && template.id !== cluster.templateId) {
    throw conflict(`Cluster template ${template.id} is not valid for upgrade: a non-default nodegroup can only be upgraded to the cluster's template ${cluster.templateId}.`);
  }
  if (!UPGRADABLE.includes(cluster.status)) throw badRequest(`Upgrading a cluster when status is "${cluster.status}" is not supported.`);
  // the version the cluster runs (the engine's), not the one it was made with
  const current = (await clusterById(db, cluster.id))?.settings.kubeVersion ?? settingsFromLabels(cluster.attrs.labels, undefined, undefined).kubeVersion;
  const target = settingsFromLabels(template.attrs.labels, undefined, undefined).kubeVersion;
  const refused = current === target ? undefined : upgradePathProblem(current, target);
  if (refused) throw badRequest(refused);
  return {
    status: 'UPDATE_IN_PROGRESS',
    opParams: { templateId: template.id, templateName: template.name, nodegroupId: group?.id, nodegroup: group?.name, version: `v${target}`, maxBatchSize: body.max_batch_size ?? 1, rollback },
    check: (c) => { if (!UPGRADABLE.includes(c.status)) throw new Refused(400, `Upgrading a cluster when status is "${c.status}" is not supported.`); },
    nodegroups: async (_q, _c, groups) => ({ ids: group ? [group.id] : groups.map((g) => g.id), status: 'UPDATE_IN_PROGRESS' }),
  };
}
