/**
 * Which VIM row an operation of project P acts with. P's own VIM: itself.
 * A shared VIM P does not own (the deployment's default VIM): P's access to
 * it, whose login is the shared VIM's but scoped to a Keystone trust from a
 * member of P (Heat's and Magnum's way): in P, with VIM_TRUST_ROLES only, so
 * stacks, servers, ports and volumes are P's and nothing of the VIM owner's
 * power comes along. The trust is made with the caller's own token the first
 * time, and made again when it stopped working (its trustor left P).
 */
import type { Caller } from './auth/tokens';
import type { ApiContext } from './context';
import { projectAccessTo, saveProjectAccess, type VimRow } from '../store/repos/vims';
import { forbidden, HttpError } from '../common/http-error';
import { createTrust } from '../infra/openstack/keystone-trusts';
import { OpenStackHttpError } from '../infra/openstack/http';
import { sessionForVim } from '../infra/vim';

/** Whether the VIM logs in at the Keystone that issued the API's callers' tokens (so a caller's token works there). */
export const sharesApiKeystone = (cfg: ApiContext['cfg'], vim: Pick<VimRow, 'authUrl'>) =>
  vim.authUrl.replace(/\/+$/, '') === cfg.identity.authUrl.replace(/\/+$/, '');

export interface Requester { caller: Caller; token: string }

export async function actingVimId(ctx: Pick<ApiContext, 'db' | 'box' | 'cfg'>, who: Requester, vim: VimRow, projectId: string): Promise<string> {
  if (!vim.shared || vim.projectId === projectId) return vim.id;
  const existing = await projectAccessTo(ctx.db, vim.id, projectId);
  if (existing && (await trustWorks(ctx, existing))) return existing.id;
  const name = `the shared VIM ${vim.name} (${vim.id})`;
  if (who.caller.projectId !== projectId) throw forbidden(`project ${projectId} acts on ${name} through a trust from one of its members; none works yet: a member of that project must make the request`);
  if (!sharesApiKeystone(ctx.cfg, vim)) {
    throw forbidden(`${name} is in another Keystone than this API's, so no trust from you can reach it: register a VIM of your project (openstack vim register)`);
  }
  const trusteeUserId = await reach(name, async () => (await (await sessionForVim(ctx.db, ctx.box, vim.id)).getToken()).userId);
  if (!trusteeUserId) throw new HttpError(503, `${name}: its Keystone named no user for the VIM's login`);
  let trustId: string;
  try {
    trustId = await createTrust(vim.authUrl, who.token, { trustorUserId: who.caller.userId, trusteeUserId, projectId, roles: ctx.cfg.vimTrustRoles }, vim.caCert ?? undefined);
  } catch (e) {
    if (e instanceof OpenStackHttpError && e.status >= 400 && e.status < 500) {
      throw forbidden(`${name} is used in your project through a trust from you (roles ${ctx.cfg.vimTrustRoles.join(', ')} in project ${projectId}), which Keystone refused: ${e.detail}`);
    }
    throw unreachable(name, e);
  }
  return saveProjectAccess(ctx.db, vim, projectId, trustId);
}

const unreachable = (name: string, e: unknown) => new HttpError(503, `${name} could not be reached: ${(e as Error).message.slice(0, 300)}`);

async function reach<T>(name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw unreachable(name, e);
  }
}

/** Whether the access's trust still gives a token (a fresh one: a deleted trust's cached token would still look fine here). */
async function trustWorks(ctx: Pick<ApiContext, 'db' | 'box'>, access: VimRow): Promise<boolean> {
  try {
    await (await sessionForVim(ctx.db, ctx.box, access.id)).getToken(true);
    return true;
  } catch (e) {
    if (e instanceof OpenStackHttpError && [401, 403, 404].includes(e.status)) return false;
    throw unreachable(`the shared VIM ${access.accessOf}`, e);
  }
}
