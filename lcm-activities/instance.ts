/**
 * The instance's instantiatedVnfInfo, rebuilt from its stack after every
 * operation that changes resources (instantiate, heal, scale), and cleared
 * when it goes back to NOT_INSTANTIATED.
 */
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { updateInstanceAndOpOcc } from '../store/repos/op-occs';
import { forgetHostKeys } from '../store/repos/host-keys';
import { redact } from '../common/secrets';
import { maskBySchema } from '../common/secret-schema';
import { InstantiateAdditionalParams } from '../model/additional-params';
import { scaleStatusForLevel } from '../infra/hot';
import { buildInstantiatedVnfInfo, type ExtVirtualLinkInfo, type HeatResource, type VnfcResourceInfo } from '../infra/vnf-info';
import type { VimPort } from '../infra/vnf-info/cp-protocol';
import { StackDriver } from '../infra/stack-driver';
import { lookupsForVim, stackNameFor } from '../infra/vim';
import type { ActivityDeps } from './deps';
import { opContext } from './op-context';
import type { Connectivity } from './records';

type ScaleStatus = { aspectId: string; scaleLevel: number }[];

/** VNFC ids an operation added, replaced (new server) or removed. */
export interface VnfcChanges { added: string[]; modified: string[]; removed: string[] }

export function instanceActivities(deps: ActivityDeps) {
  const { db, box } = deps;
  /** What Neutron assigned the stack's ports (every CP's addresses, shown in instantiatedVnfInfo), by port id. */
  const portAddresses = async (vimId: string, resources: HeatResource[]): Promise<Record<string, VimPort>> => {
    const ids = resources.filter((r) => r.resource_type === 'OS::Neutron::Port' && r.physical_resource_id).map((r) => r.physical_resource_id);
    if (!ids.length) return {};
    const ports = await (await lookupsForVim(db, box, vimId)).ports([...new Set(ids)]);
    return Object.fromEntries(ports.map((p) => [p.id, p]));
  };

  return {
    /**
     * Reads the stack's resources and records instantiatedVnfInfo (instance INSTANTIATED) and the op's
     * resourceChanges; built with the requested connectivity, the op occ's changedExtConnectivity too.
     */
    async recordVnfInfo({ opOccId, scaleStatus, connectivity, accumulate }: {
      opOccId: string; scaleStatus?: ScaleStatus; connectivity?: Connectivity;
      /** The op records its stack changes in several steps (BlueGreen): resourceChanges sums them up. */
      accumulate?: boolean;
    }): Promise<VnfcChanges> {
      const ctx = await opContext(deps, opOccId);
      const { op } = ctx;
      const [inst, flavour] = [await ctx.instance(), await ctx.flavour()];
      if (!inst.stackId || !inst.vimId) throw ApplicationFailure.nonRetryable(`instance ${inst.id} has no stack`, 'StackFailed');
      const input = await ctx.instantiateInput(connectivity);
      const previous = inst.instantiatedVnfInfo ?? undefined;
      const resources = await StackDriver.forStore(db, box).resources({ vimId: inst.vimId, name: stackNameFor(inst.id), id: inst.stackId });
      const ports = await portAddresses(inst.vimId, resources);
      const info = buildInstantiatedVnfInfo({
        flavour, input, vimConnectionId: inst.vimId, resources, ports, newId: () => crypto.randomUUID(), previous,
        scaleStatus: scaleStatus ?? previous?.scaleStatus ?? scaleStatusForLevel(flavour, input.instantiationLevelId),
      });
      const changes = diffVnfcs(previous?.vnfcResourceInfo ?? [], info.vnfcResourceInfo);
      await forgetHostKeys(db, [...changes.modified, ...changes.removed]); // replaced servers have new SSH host keys
      const byId = new Map([...(previous?.vnfcResourceInfo ?? []), ...info.vnfcResourceInfo].map((v) => [v.id, v]));
      const affected = (ids: string[], changeType: AffectedVnfc['changeType']): AffectedVnfc[] => ids.map((id) => ({ id, vduId: byId.get(id)!.vduId, changeType, computeResource: byId.get(id)!.computeResource }));
      const now = [...affected(changes.added, 'ADDED'), ...affected(changes.modified, 'MODIFIED'), ...affected(changes.removed, 'REMOVED')];
      const earlier = accumulate ? ((op.resourceChanges as { affectedVnfcs?: AffectedVnfc[] } | null)?.affectedVnfcs ?? []) : [];
      const shown = { ...redact(info), additionalParams: maskBySchema(InstantiateAdditionalParams, input.additionalParams ?? {}) };
      await updateInstanceAndOpOcc(db, {
        instanceId: inst.id,
        instance: {
          instantiationState: 'INSTANTIATED', instantiatedVnfInfo: shown,
          instantiateParamsSealed: inst.instantiateParamsSealed ?? op.operationParamsSealed,
        },
        opOccId,
        opOcc: {
          resourceChanges: { affectedVnfcs: sumChanges(earlier, now) },
          ...(connectivity ? { changedExtConnectivity: connectivity === 'requested' ? changedExtLinks(previous?.extVirtualLinkInfo ?? [], info.extVirtualLinkInfo) : null } : {}),
        },
      });
      return changes;
    },

    /** Instance back to NOT_INSTANTIATED with no stack (terminate, instantiate rollback). */
    async recordNotInstantiated({ opOccId }: { opOccId: string }): Promise<void> {
      const ctx = await opContext(deps, opOccId);
      const { op } = ctx;
      const inst = await ctx.instance();
      const removed = (inst.instantiatedVnfInfo?.vnfcResourceInfo ?? [])
        .map((v) => ({ id: v.id, vduId: v.vduId, changeType: 'REMOVED', computeResource: v.computeResource }));
      await updateInstanceAndOpOcc(db, {
        instanceId: inst.id,
        instance: { instantiationState: 'NOT_INSTANTIATED', instantiatedVnfInfo: null, stackId: null, instantiateParamsSealed: null },
        opOccId,
        opOcc: op.operation === 'TERMINATE' ? { resourceChanges: { affectedVnfcs: removed } } : undefined,
      });
    },
  };
}

type AffectedVnfc = { id: string; vduId: string; changeType: 'ADDED' | 'MODIFIED' | 'REMOVED'; computeResource: unknown };

/** Two steps' changes as one: added then removed is nothing, added then modified is added, modified then removed is removed. */
export function sumChanges(earlier: AffectedVnfc[], now: AffectedVnfc[]): AffectedVnfc[] {
  const out = new Map(earlier.map((c) => [c.id, c]));
  for (const c of now) {
    const before = out.get(c.id)?.changeType;
    if (before === 'ADDED' && c.changeType === 'REMOVED') out.delete(c.id);
    else out.set(c.id, before === 'ADDED' ? { ...c, changeType: 'ADDED' } : c);
  }
  return [...out.values()];
}

function diffVnfcs(before: VnfcResourceInfo[], after: VnfcResourceInfo[]): VnfcChanges {
  const old = new Map(before.map((v) => [v.id, v]));
  const now = new Set(after.map((v) => v.id));
  return {
    added: after.filter((v) => !old.has(v.id)).map((v) => v.id),
    modified: after.filter((v) => old.has(v.id) && old.get(v.id)!.computeResource.resourceId !== v.computeResource.resourceId).map((v) => v.id),
    removed: before.filter((v) => !now.has(v.id)).map((v) => v.id),
  };
}

/**
 * SOL003 changedExtConnectivity: the ext VLs (as now) whose network, ports or
 * port resources differ from before (as Tacker decides it: id or resourceId).
 */
export function changedExtLinks(before: ExtVirtualLinkInfo[], after: ExtVirtualLinkInfo[]): ExtVirtualLinkInfo[] {
  const key = (l: ExtVirtualLinkInfo) => JSON.stringify([l.resourceHandle.resourceId, (l.extLinkPorts ?? []).map((p) => [p.id, p.resourceHandle.resourceId]).sort()]);
  return after.filter((l) => {
    const old = before.find((b) => b.id === l.id);
    return !old || key(old) !== key(l);
  });
}
