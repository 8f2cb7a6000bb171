/**
 * ModifyVnfInfo before anything is written, as Tacker's v2 controller and better:
 * - vnfdId and vimConnectionInfo on /vnflcm/v2 only (400 naming the field);
 * - vnfdId: an onboarded, ENABLED package of the instance's project (422, as
 *   Tacker), which, for an instantiated instance, has its flavour (422: heal
 *   and scale would not find it); held IN_USE while the op runs;
 * - vimConnectionInfo: only for an INSTANTIATED instance (409); after the merge
 *   the instance must still run on its own VIM (422: its stack lives there),
 *   and inline credentials update a VIM of the caller's project only (403 for
 *   the shared one), written with the op occ.
 * Any operation still open on the instance makes the start 409.
 */
import { packageForVnfd } from '../../../store/repos/packages';
import { holdChangeTarget } from '../../../store/package-usage';
import { badRequest, conflict, unprocessable } from '../../../common/http-error';
import type { Q } from '../../../store';
import type { PrecheckInput, StartPlan } from '../../operation';
import { resolveVim } from '../instantiate/vim-selection';
import { mergedVci } from './apply';
import type { InstanceRow } from '../../../store/repos/rows';
import type { VimConnectionInfo } from '../../../model/vnflcm';
import type { z } from 'zod';
import { V2_ONLY_FIELDS, type VnfInfoModificationRequest } from './request';

export async function precheckModifyInfo({ db, box, instance: inst, request: body, version, actingVim }: PrecheckInput<VnfInfoModificationRequest>): Promise<StartPlan> {
  if (version === 'v1') {
    for (const f of V2_ONLY_FIELDS) if (body[f] !== undefined) throw badRequest(`${f}: modifiable on /vnflcm/v2 only`, { invalidParams: [{ field: f, reason: 'modifiable on /vnflcm/v2 only' }] });
  }
  const writes: ((q: Q) => Promise<void>)[] = [];
  if (body.vnfdId !== undefined && body.vnfdId !== inst.vnfdId) {
    const target = await packageForVnfd(db, { projectId: inst.projectId, all: false }, body.vnfdId);
    if (!target) throw unprocessable(`vnfdId: no onboarded VNF package of the instance's project has vnfdId ${body.vnfdId}`);
    if (target.operationalState !== 'ENABLED') throw unprocessable(`vnfdId: VNF package ${target.id} (vnfdId ${body.vnfdId}) is DISABLED`);
    const flavourId = inst.instantiatedVnfInfo?.flavourId;
    if (inst.instantiationState === 'INSTANTIATED' && flavourId && !target.vnfd?.flavours[flavourId]) {
      throw unprocessable(`vnfdId: VNFD ${body.vnfdId} has no flavour ${flavourId}, the one the instance runs`);
    }
    writes.push(async (q) => { const problem = await holdChangeTarget(q, target.id); if (problem) throw conflict(problem); });
  }
  if (body.vimConnectionInfo !== undefined) {
    if (inst.instantiationState !== 'INSTANTIATED') throw conflict(`vimConnectionInfo: VNF instance ${inst.id} is NOT_INSTANTIATED; its VIM is chosen when it is instantiated`);
    const vim = await resolveVim({ db, box }, { projectId: inst.projectId, all: false }, entriesToResolve(inst, body.vimConnectionInfo), actingVim);
    if (vim.vimId !== inst.vimId) {
      throw unprocessable(`vimConnectionInfo: VNF instance ${inst.id} runs on VIM ${inst.vimId}, where its stack is; its first entry names VIM ${vim.vimId}`);
    }
    if (vim.write) writes.push(vim.write);
  }
  return {
    precondition: (i) => {
      if (body.vimConnectionInfo !== undefined && i.instantiationState !== 'INSTANTIATED') throw conflict(`vimConnectionInfo: VNF instance ${i.id} is NOT_INSTANTIATED`);
    },
    write: async (q) => { for (const w of writes) await w(q); },
  };
}

/**
 * The merged entries as the VIM selection reads them. What the instance shows
 * is masked, so an entry counts as inline credentials only when the request
 * itself gives the password (a rotation); otherwise it names its VIM by id,
 * the first one (without an id of its own) being the instance's VIM.
 */
function entriesToResolve(inst: InstanceRow, patch: NonNullable<VnfInfoModificationRequest['vimConnectionInfo']>): z.infer<typeof VimConnectionInfo>[] {
  return mergedVci(inst.vimConnectionInfo, patch).map((e, i) => {
    const vimId = typeof e.vimId === 'string' ? e.vimId : i === 0 ? inst.vimId ?? undefined : undefined;
    const entry = { id: String(e.id), vimId, vimType: String(e.vimType ?? 'ETSINFV.OPENSTACK_KEYSTONE.V_3') };
    const newSecret = typeof patch[entry.id]?.accessInfo?.password === 'string';
    return newSecret ? { ...(e as z.infer<typeof VimConnectionInfo>), ...entry } : entry;
  });
}
