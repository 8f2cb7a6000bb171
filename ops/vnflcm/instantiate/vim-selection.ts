/**
 * Which VIM an instantiate runs on, decided against the caller's project
 * before anything is written:
 *  - vimConnectionInfo naming a vimId the project may use (its own, or the
 *    shared default VIM);
 *  - a VIM given inline (interfaceInfo.endpoint + accessInfo): a VIM record
 *    of the caller's project, new, or its own one of that id (overwritten);
 *    the record is written in the operation's own transaction, so a request
 *    refused later changes nothing;
 *  - nothing: the project's default VIM, else the shared default.
 * Another project's VIM, or the shared one with inline credentials (even
 * from its own project), is refused. What the instance shows has no secrets.
 * On a shared VIM the instance acts through its project's access
 * (`acting`: api/vim-access.ts), and shows the shared VIM's id.
 */
import crypto from 'node:crypto';
import { defaultVimFor, findOwnedVim, findUsableVim, upsertInlineVim, vimIdTaken, type VimRow } from '../../../store/repos/vims';
import type { Scope } from '../../../store/repos/scope';
import { maskBySchema } from '../../../common/secret-schema';
import type { Q, Store } from '../../../store';
import type { SecretBox } from '../../../common/secrets';
import { badRequest, forbidden, unprocessable } from '../../../common/http-error';
import { vimEndpointProblem } from '../../../common/outbound';
import { VimConnectionInfo } from '../../../model/vnflcm';
import type { InstantiateVnfRequest } from './request';

type Vci = NonNullable<InstantiateVnfRequest['vimConnectionInfo']>;

export interface VimChoice {
  vimId: string;
  shown: Record<string, unknown>[];
  /** The inline VIM's record, written inside the operation's transaction. */
  write?: (q: Q) => Promise<void>;
}

/** The VIM row the project acts with on `vim` (itself, or its access to a shared VIM). */
export type ActingVim = (vim: VimRow) => Promise<string>;

export async function resolveVim(ctx: { db: Store; box: SecretBox }, scope: Scope, given: Vci | undefined, acting: ActingVim): Promise<VimChoice> {
  const entries = given === undefined ? [] : Array.isArray(given) ? given : Object.entries(given).map(([id, e]) => ({ id, ...e }));
  const first = entries[0];
  const shown = () => entries.map((e) => maskBySchema(VimConnectionInfo, { interfaceInfo: {}, accessInfo: {}, ...e, id: e.id ?? crypto.randomUUID() }));
  if (!first) {
    const vim = await defaultVimFor(ctx.db, scope);
    if (!vim) throw unprocessable('no vimConnectionInfo given and no default VIM is configured');
    return { vimId: await acting(vim), shown: [{ id: crypto.randomUUID(), vimId: vim.id, vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3', interfaceInfo: {}, accessInfo: {} }] };
  }
  const access = (first.accessInfo ?? {}) as Record<string, unknown>;
  const endpoint = (first.interfaceInfo as Record<string, unknown> | undefined)?.endpoint;
  const inline = typeof endpoint === 'string' && typeof access.username === 'string' && typeof access.password === 'string';
  if (!inline) {
    const usable = first.vimId ? await findUsableVim(ctx.db, scope, first.vimId) : undefined;
    if (!usable) {
      throw unprocessable(`vimConnectionInfo[0].vimId: VIM ${first.vimId ?? '(none)'} is not registered for your project; register it (openstack vim register) or give interfaceInfo.endpoint and accessInfo`);
    }
    return { vimId: await acting(usable), shown: shown() };
  }
  const outbound = vimEndpointProblem(endpoint);
  if (outbound) throw badRequest(`vimConnectionInfo[0].interfaceInfo.endpoint: ${outbound}`);
  const vimId = first.vimId ?? crypto.randomUUID();
  const own = await findOwnedVim(ctx.db, { projectId: scope.projectId, all: false }, vimId);
  // shared: read-only for every project, its owner (the admin project) too: an LCM request must not repoint
  // the VIM everyone's instances run on (its owner changes it with `openstack vim set`, which checks the login first)
  if (own?.shared || (!own && (await findUsableVim(ctx.db, scope, vimId)))) throw forbidden(`vimConnectionInfo[0].vimId: VIM ${vimId} is shared read-only; leave out interfaceInfo and accessInfo to use it`);
  if (!own && (await vimIdTaken(ctx.db, vimId))) {
    throw unprocessable(`vimConnectionInfo[0].vimId: VIM ${vimId} is not registered for your project; choose another id`);
  }
  const str = (k: string, dflt: string) => (typeof access[k] === 'string' && access[k] ? String(access[k]) : dflt);
  const row = {
    name: own?.name ?? `vim-${vimId}`, type: 'openstack', authUrl: endpoint, username: String(access.username),
    passwordSealed: ctx.box.seal(String(access.password)), project: str('project', str('projectName', 'admin')),
    projectDomain: str('projectDomain', 'Default'), userDomain: str('userDomain', 'Default'), region: str('region', 'RegionOne'),
    updatedAt: new Date().toISOString(),
  };
  return {
    vimId,
    shown: shown(),
    write: async (q) => {
      if (!(await upsertInlineVim(q, scope.projectId, vimId, row))) throw unprocessable(`vimConnectionInfo[0].vimId: VIM ${vimId} is not registered for your project; choose another id`);
    },
  };
}
