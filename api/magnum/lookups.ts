/**
 * Path identifiers as Magnum resolves them: a uuid, else a name among what
 * the caller sees (several: 409). Admins reach any project's resource by
 * uuid, as elsewhere in the product; names stay within the caller's view.
 */
import type { ApiContext } from '../context';
import { vimById } from '../../store/repos/vims';
import { CloudLookups } from '../../infra/openstack/cloud-lookups';
import { sessionForVim } from '../../infra/vim';
import { HttpError } from '../../common/http-error';
import { sharesApiKeystone } from '../vim-access';
import { magnumClusterById, magnumClusters, nodegroupsOf, type MagnumClusterRow, type NodegroupRow } from '../../store/repos/magnum/clusters';
import { templateById, visibleTemplates, type TemplateRow } from '../../store/repos/magnum/templates';
import { notFound } from '../../common/http-error';
import type { Caller } from './caller';
import { resolveIdent } from './collection';
import { isUuidLike } from '../../model/magnum/names';

export async function findTemplate(ctx: ApiContext, c: Caller, ident: string): Promise<TemplateRow> {
  const rows = await visibleTemplates(ctx.db, c);
  if (c.isAdmin && isUuidLike(ident)) {
    const any = await templateById(ctx.db, ident.toLowerCase());
    if (any && !rows.some((x) => x.id === any.id)) rows.push(any);
  }
  return resolveIdent(rows, ident, { what: 'ClusterTemplate', plural: 'ClusterTemplates', uuidOf: (t) => t.id, nameOf: (t) => t.name });
}

export async function findCluster(ctx: ApiContext, c: Caller, ident: string): Promise<MagnumClusterRow> {
  if (isUuidLike(ident)) {
    const hit = await magnumClusterById(ctx.db, ident.toLowerCase(), { projectId: c.projectId, all: c.isAdmin });
    if (hit) return hit;
  }
  const rows = await magnumClusters(ctx.db, { projectId: c.projectId, all: false });
  return resolveIdent(rows, ident, { what: 'Cluster', plural: 'clusters', uuidOf: (x) => x.id, nameOf: (x) => x.name });
}

/** A nodegroup of the cluster by int id, uuid or name. */
export async function findNodegroup(ctx: ApiContext, cluster: MagnumClusterRow, ident: string): Promise<NodegroupRow> {
  const groups = await nodegroupsOf(ctx.db, cluster.id);
  if (/^\d+$/.test(ident)) {
    const byId = groups.find((g) => g.id === Number(ident));
    if (byId) return byId;
  }
  const byUuid = groups.find((g) => g.uuid === ident.toLowerCase());
  if (byUuid) return byUuid;
  const named = groups.find((g) => g.name === ident);
  if (named) return named;
  throw notFound(`Nodegroup ${ident} could not be found.`);
}

/**
 * The VIM's images, flavors, networks and key pairs for Magnum's checks
 * (ops/magnum/shared/cloud-checks.ts): with the caller's own token when the
 * VIM shares the API's Keystone (what the caller may see is what counts:
 * their images, their key pairs); else with the VIM's credentials.
 */
export async function lookupsFor(ctx: ApiContext, callerToken: string, vimId: string): Promise<CloudLookups> {
  const vim = await vimById(ctx.db, vimId);
  if (!vim) throw new HttpError(503, `the VIM ${vimId} of this deployment is not registered`);
  const session = await sessionForVim(ctx.db, ctx.box, vimId);
  const sameKeystone = sharesApiKeystone(ctx.cfg, vim);
  return new CloudLookups({
    token: async () => (sameKeystone ? callerToken : (await session.getToken()).value),
    endpoint: (type) => session.endpoint(type),
    ca: vim.caCert ?? undefined,
  });
}
