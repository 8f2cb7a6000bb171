/**
 * ChangeExtVnfConnectivity's own activities: the instance's record taking the
 * requested connectivity (last), and, in a rollback, the addresses Heat took
 * from ports it failed to replace.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { instantiatedInfoOf } from '../../../store/repos/instances';
import { updateInstanceAndOpOcc } from '../../../store/repos/op-occs';
import type { ActivityDeps } from '../../../lcm-activities/deps';
import { opContext } from '../../../lcm-activities/op-context';
import { neutronForVim } from '../../../infra/vim';
import type { FixedIp } from '../../../infra/openstack/neutron';
import type { ChangeExtVnfConnectivityRequest } from './request';

export function changeExtConnActivities({ db, box, log }: ActivityDeps) {
  return {
    /** Idempotent: the merge of the request over a record that has it already gives the same record. */
    async recordExtConnectivity({ opOccId }: { opOccId: string }): Promise<void> {
      const ctx = await opContext({ db, box }, opOccId);
      const inst = await ctx.instance();
      if (!inst.instantiateParamsSealed) throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id} has no instantiation record`, 'InvalidInput');
      await updateInstanceAndOpOcc(db, {
        instanceId: inst.id, instance: { instantiateParamsSealed: box.sealJson(await ctx.instantiateInput('requested')) }, opOccId,
      });
    },

    /**
     * Before Heat replaces a port it empties the port's fixed IPs (so the new
     * one may take them), and gives them back only in a rollback of its own:
     * a CP whose move failed stays on its old port with no address. Once the
     * stack is back on the recorded connectivity, each such port of a CP the
     * request named gets the addresses the instance recorded for it (what
     * the VIM had assigned). Ports that are gone or have addresses are left
     * alone, so a repeat does nothing.
     */
    async restoreExtCpAddresses({ opOccId }: { opOccId: string }): Promise<void> {
      const ctx = await opContext({ db, box }, opOccId);
      const inst = await ctx.instance();
      const info = instantiatedInfoOf(inst);
      const named = new Set(ctx.params<ChangeExtVnfConnectivityRequest>().extVirtualLinks.flatMap((l) => l.extCps.map((c) => c.cpdId)));
      const neutron = await neutronForVim(db, box, inst.vimId!);
      for (const cp of info.extCpInfo.filter((c) => named.has(c.cpdId))) {
        const port = info.extVirtualLinkInfo.flatMap((l) => l.extLinkPorts ?? []).find((p) => p.cpInstanceId === cp.id)?.resourceHandle.resourceId;
        const recorded: FixedIp[] = cp.cpProtocolInfo.flatMap((p) => p.ipOverEthernet?.ipAddresses ?? [])
          .flatMap((a) => (a.addresses ?? []).map((ip) => ({ ip_address: ip, ...(a.subnetId ? { subnet_id: a.subnetId } : {}) })));
        if (!port || !recorded.length) continue;
        const now = await neutron.fixedIps(port);
        if (!now || now.length) continue;
        await neutron.setFixedIps(port, recorded);
        log.info({ opOccId, port, cpdId: cp.cpdId }, 'addresses given back to a port Heat failed to replace');
      }
    },
  };
}

export type ChangeExtConnActivities = ReturnType<typeof changeExtConnActivities>;
