/** Nova, Glance and Neutron lookups with a VIM's own credentials (the worker acts as the VIM account). */
import type { ActivityDeps } from '../../../../activities/deps';
import { vimById } from '../../../../common/db/repos/vims';
import { CloudLookups } from '../../../../infra/openstack/cloud-lookups';
import { sessionForVim } from '../../../../infra/vim';

export async function vimLookups(deps: Pick<ActivityDeps, 'db' | 'box'>, vimId: string): Promise<CloudLookups> {
  const session = await sessionForVim(deps.db, deps.box, vimId);
  const vim = await vimById(deps.db, vimId);
  return new CloudLookups({ token: async () => (await session.getToken()).value, endpoint: (type) => session.endpoint(type), ca: vim?.caCert ?? undefined });
}
