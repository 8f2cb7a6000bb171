/** Nova, Glance and Neutron lookups with a VIM's own credentials (the worker acts as the VIM account). */
import type { ActivityDeps } from '../../../../lcm-activities/deps';
import type { CloudLookups } from '../../../../infra/openstack/cloud-lookups';
import { lookupsForVim } from '../../../../infra/vim';

export function vimLookups(deps: Pick<ActivityDeps, 'db' | 'box'>, vimId: string): Promise<CloudLookups> {
  return lookupsForVim(deps.db, deps.box, vimId);
}
