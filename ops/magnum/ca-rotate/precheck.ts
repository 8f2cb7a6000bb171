/** CA rotation is refused at once for a TLS-disabled cluster (400), one whose create has not made its PKI yet (409), or a busy one (400, as Magnum). */
import { clusterById, clusterPki } from '../../../store/repos/clusters';
import { Refused } from '../../../store/repos/magnum/clusters';
import { templateById } from '../../../store/repos/magnum/templates';
import { badRequest, conflict } from '../../../common/http-error';
import { UPDATABLE } from '../../../model/magnum/status';
import type { MagnumPrecheckInput, MagnumStartPlan } from '../operation';

export async function precheckCaRotate({ db, cluster }: MagnumPrecheckInput<undefined>): Promise<MagnumStartPlan> {
  const template = await templateById(db, cluster.templateId);
  if (template?.attrs.tls_disabled) throw badRequest('Rotating the CA certificate on a non-TLS cluster is not supported');
  const engine = await clusterById(db, cluster.id);
  if (!engine || !(await clusterPki(db, cluster.id, engine.pkiGeneration))) throw conflict(`Cluster ${cluster.id} has no certificates yet: its create is still making them.`);
  return {
    status: 'UPDATE_IN_PROGRESS',
    check: (x) => { if (!UPDATABLE.includes(x.status)) throw new Refused(400, `Rotating the CA certificate of a cluster when status is "${x.status}" is not supported.`); },
    nodegroups: async (_q, _c, groups) => ({ ids: groups.map((g) => g.id), status: 'UPDATE_IN_PROGRESS' }),
  };
}
