/**
 * Which VIM an instantiate runs on: a registered VIM named by
 * vimConnectionInfo[].vimId, a VIM given inline (interfaceInfo.endpoint +
 * accessInfo, registered on the fly with its password sealed), or the
 * default VIM from configuration. What the instance shows has no secrets.
 */
import { eq } from 'drizzle-orm';
import crypto from 'node:crypto';
import { vims } from '../../common/db/schema';
import { redact } from '../../common/secrets';
import { defaultVimId } from '../../infra/vim';
import type { ApiContext } from '../context';
import { unprocessable } from '../errors';
import type { InstantiateVnfRequest } from '../schemas/vnflcm';

type Vci = NonNullable<InstantiateVnfRequest['vimConnectionInfo']>;

export function resolveVim(ctx: ApiContext, given: Vci | undefined): { vimId: string; shown: Record<string, unknown>[] } {
  const entries = given === undefined ? [] : Array.isArray(given) ? given : Object.entries(given).map(([id, e]) => ({ id, ...e }));
  const first = entries[0];
  if (!first) {
    const vimId = defaultVimId(ctx.db);
    if (!vimId) throw unprocessable('no vimConnectionInfo given and no default VIM is configured');
    return { vimId, shown: [{ id: crypto.randomUUID(), vimId, vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3', interfaceInfo: {}, accessInfo: {} }] };
  }
  const access = (first.accessInfo ?? {}) as Record<string, string>;
  const endpoint = (first.interfaceInfo as Record<string, string> | undefined)?.endpoint;
  let vimId = first.vimId;
  if (endpoint && access.username && access.password) {
    vimId ??= crypto.randomUUID();
    const row = {
      name: `vim-${vimId}`, type: 'openstack', authUrl: endpoint, username: access.username,
      passwordSealed: ctx.box.seal(access.password), project: access.project ?? access.projectName ?? 'admin',
      projectDomain: access.projectDomain ?? 'Default', userDomain: access.userDomain ?? 'Default', region: access.region ?? 'RegionOne',
    };
    ctx.db.insert(vims).values({ id: vimId, isDefault: false, createdAt: new Date().toISOString(), ...row })
      .onConflictDoUpdate({ target: vims.id, set: row }).run();
  } else if (!vimId || !ctx.db.select({ id: vims.id }).from(vims).where(eq(vims.id, vimId)).get()) {
    throw unprocessable(`vimConnectionInfo[0].vimId: VIM ${vimId ?? '(none)'} is not registered; register it or give interfaceInfo.endpoint and accessInfo`);
  }
  return { vimId, shown: entries.map((e) => redact({ interfaceInfo: {}, accessInfo: {}, ...e, id: e.id ?? crypto.randomUUID() })) };
}
