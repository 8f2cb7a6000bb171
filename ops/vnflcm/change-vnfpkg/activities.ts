/**
 * ChangeCurrentVnfPkg activities (RollingUpdate and BlueGreen): the plan
 * (which VNFCs, in which order, how each is coordinated; BlueGreen's layouts),
 * the stack update that puts a chosen set of VNFCs on the new package, the
 * switch of the instance's package, and the coordination with the EM (the
 * whole wait in one activity: coordination-wait.ts).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { packageById, packageForVnfd } from '../../../store/repos/packages';
import { hasPackageFile } from '../../../store/repos/package-files';
import { updateInstanceAndOpOcc } from '../../../store/repos/op-occs';
import { forgetHostKeys } from '../../../store/repos/host-keys';
import type { LcmCoord } from '../../../model/coordination';
import { coordinationExchanges, type CoordArgs, type Exchanging } from './coordination-exchanges';
import { dropParkedWait, parkForDecision } from './coordination-parking';
import { awaitDecision } from './coordination-wait';
import type { ChangeCurrentVnfPkgRequest, VnfcParam } from './request';
import { besideLayout, currentLayout, vnfcIndex, type VnfcLayout } from '../../../infra/hot';
import { indexedName, vnfcTargets } from '../../../infra/hot/nfv-param';
import { StackDriver } from '../../../infra/stack-driver';
import { stackNameFor } from '../../../infra/vim';
import type { InstantiatedVnfInfo } from '../../../infra/vnf-info';
import { mappedDriver, scriptPath } from '../../../mgmt/mapping';
import { redact } from '../../../common/secrets';
import type { ActivityDeps } from '../../../lcm-activities/deps';
import { opContext } from '../../../lcm-activities/op-context';
import { stackSpecFor } from '../../../lcm-activities/stack';
import { instantiatedInfoOf } from '../../../store/repos/instances';

export interface RollingTarget { vnfcId: string; vduId: string; heatResourceName: string }
export type CoordMode = { kind: 'builtin' | 'script' | 'none'; timeoutMs: number };
export interface ChangeVnfpkgPlan {
  oldPackageId: string;
  newPackageId: string;
  targets: RollingTarget[];
  /** How each VNFC is coordinated after its update (new) and after its rollback (old). */
  coordination: Record<string, { new: CoordMode; old: CoordMode }>;
  /** BlueGreen only: the VNFCs by index (infra/hot/layout.ts) and how each VDU's new and old VNFCs are coordinated. */
  blueGreen?: BlueGreenPlan;
}
export interface BlueGreenPlan {
  /** The targeted VDUs' VNFCs now. */
  old: VnfcLayout;
  /** As many new VNFCs per targeted VDU, at indices above the old ones. */
  new: VnfcLayout;
  /** The instance's other VDUs, left as they are. */
  others: VnfcLayout;
  coordination: Record<string, { new: CoordMode; old: CoordMode }>;
}
export { coordSide, COORDINATION_ACTION, type CoordSide } from './coordination-exchanges';
const DEFAULT_COORD_TIMEOUT_S = 300;
const BUILTIN = 'coordination';

const indexOf = (t: RollingTarget) => vnfcIndex(t.heatResourceName, t.vduId) ?? 0;

/** The VNFCs of the targeted VDUs, newest first (descending index across the VDUs, then vdu_params order). */
export function rollingTargets(info: InstantiatedVnfInfo, vduOrder: string[]): RollingTarget[] {
  return info.vnfcResourceInfo.filter((v) => vduOrder.includes(v.vduId))
    .map((v) => ({ vnfcId: v.id, vduId: v.vduId, heatResourceName: v.metadata.heatResourceName }))
    .sort((a, b) => indexOf(b) - indexOf(a) || vduOrder.indexOf(a.vduId) - vduOrder.indexOf(b.vduId));
}
export { scriptPath };

/** BlueGreen: the targeted VDUs' VNFCs now, as many new ones above them, and the other VDUs' VNFCs. */
export function blueGreenLayout(info: InstantiatedVnfInfo, vduIds: string[], targeted: string[]): Omit<BlueGreenPlan, 'coordination'> {
  const now = currentLayout(info, vduIds);
  const pick = (keep: (vduId: string) => boolean) => Object.fromEntries(Object.entries(now).filter(([v]) => keep(v)));
  const old = pick((v) => targeted.includes(v));
  return { old, new: besideLayout(now, Object.fromEntries(Object.entries(old).map(([v, idx]) => [v, idx.length]))), others: pick((v) => !targeted.includes(v)) };
}

export function changeVnfpkgActivities(deps: ActivityDeps) {
  const { db, box, cfg } = deps;
  const { exchanging, exchangesWith, exchanges } = coordinationExchanges(deps);


  return {
    async describeChangeVnfpkg({ opOccId }: { opOccId: string }): Promise<ChangeVnfpkgPlan> {
      const ctx = await opContext(deps, opOccId);
      const { op } = ctx;
      const [inst, flavour] = [await ctx.instance(), await ctx.flavour()];
      const req = ctx.params<ChangeCurrentVnfPkgRequest>();
      // The package the API accepted and holds IN_USE for this op: the instance's project's (store/package-usage.ts).
      const pkg = await packageForVnfd(db, { projectId: op.projectId, all: false }, req.vnfdId);
      if (!pkg) throw ApplicationFailure.nonRetryable(`no onboarded package has vnfdId ${req.vnfdId}`, 'InvalidInput');
      const targets = rollingTargets(instantiatedInfoOf(inst), req.additionalParams.vdu_params.map((p) => p.vdu_id));
      const mode = async (script: string | undefined, packageId: string, param: VnfcParam | undefined): Promise<CoordMode> => {
        const timeoutMs = (param?.timeout ?? DEFAULT_COORD_TIMEOUT_S) * 1000;
        const path = scriptPath(script);
        if (path && mappedDriver(path) === BUILTIN) return { kind: param?.endpoint ? 'builtin' : 'none', timeoutMs };
        if (path) {
          if (!(await hasPackageFile(db, packageId, path))) throw ApplicationFailure.nonRetryable(`coordinate script ${path} is not in package ${packageId}`, 'InvalidInput');
          return { kind: 'script', timeoutMs };
        }
        return { kind: param?.endpoint ? 'builtin' : 'none', timeoutMs };
      };
      const modes = async (vduId: string) => {
        const vp = req.additionalParams.vdu_params.find((p) => p.vdu_id === vduId);
        return {
          new: await mode(req.additionalParams['lcm-operation-coordinate-new-vnf'], pkg.id, vp?.new_vnfc_param),
          old: await mode(req.additionalParams['lcm-operation-coordinate-old-vnf'], inst.vnfPkgId, vp?.old_vnfc_param),
        };
      };
      const plan: ChangeVnfpkgPlan = { oldPackageId: inst.vnfPkgId, newPackageId: pkg.id, targets, coordination: {} };
      if (req.additionalParams.upgrade_type === 'BlueGreen') {
        plan.blueGreen = { ...blueGreenLayout(instantiatedInfoOf(inst), Object.keys(flavour.vdus), req.additionalParams.vdu_params.map((p) => p.vdu_id)), coordination: {} };
        for (const vduId of Object.keys(plan.blueGreen.old)) plan.blueGreen.coordination[vduId] = await modes(vduId);
      } else {
        for (const t of targets) plan.coordination[t.vnfcId] = await modes(t.vduId);
      }
      return plan;
    },

    /**
     * One stack update: the template of `templateFrom`, and the `nfv`
     * parameter taking the new package's values for the rolling targets in
     * [newFrom, newTo) and the old package's for the rest — so a single VNFC
     * moves at a time. (Ranges, not names: inputs stay small at 1,000 VNFCs.)
     * BlueGreen names the stack's VNFCs instead (`layout`) and which of them
     * are on the new package (`newVnfcs`).
     */
    async applyPackageMix(a: {
      opOccId: string; templateFrom: string; oldPackageId: string; newPackageId: string; newFrom: number; newTo: number;
      /** The VNFC this update moves; Heat rebuilds its server on the other image: a new disk, so a new SSH host key. */
      rebuilt?: string;
      layout?: VnfcLayout;
      newVnfcs?: VnfcLayout;
    }): Promise<void> {
      const ctx = await opContext(deps, a.opOccId);
      const [inst, flavour] = [await ctx.instance(), await ctx.flavour()];
      const info = instantiatedInfoOf(inst);
      const newOn = a.newVnfcs
        ? Object.entries(a.newVnfcs).flatMap(([vduId, idx]) => idx.map((index) => ({ vduId, index })))
        : rollingTargets(info, ctx.params<ChangeCurrentVnfPkgRequest>().additionalParams.vdu_params.map((p) => p.vdu_id))
          .slice(a.newFrom, a.newTo).map((t) => ({ vduId: t.vduId, index: indexOf(t) }));
      // The new package is read only when this update puts something on it: a rollback that has
      // already moved every VNFC back does not depend on it.
      const oldSpec = await stackSpecFor(deps, ctx, { layout: a.layout, packageId: a.oldPackageId });
      const newSpec = a.templateFrom === a.newPackageId || newOn.length ? await stackSpecFor(deps, ctx, { layout: a.layout, packageId: a.newPackageId }) : oldSpec;
      const spec = a.templateFrom === a.newPackageId ? newSpec : oldSpec;
      const nfv = structuredClone(oldSpec.parameters.nfv) as { VDU: Record<string, unknown>; CP: Record<string, unknown> };
      const newNfv = newSpec.parameters.nfv as typeof nfv;
      for (const { vduId, index } of newOn) {
        if (!flavour.vdus[vduId]) continue;
        for (const t of vnfcTargets(flavour, vduId, index)) {
          const section = t.kind === 'cp' ? 'CP' : 'VDU';
          if (newNfv[section]?.[t.key] !== undefined) nfv[section][t.key] = newNfv[section][t.key];
        }
      }
      // An earlier attempt's update may still be running: the driver does not start it twice.
      await StackDriver.forStore(db, box).update(
        { vimId: inst.vimId!, name: stackNameFor(inst.id), id: inst.stackId },
        async () => ({ template: spec.template, files: spec.files, parameters: { ...spec.parameters, nfv } }),
      );
      if (a.rebuilt) await forgetHostKeys(db, [a.rebuilt]);
    },

    /** The instance now belongs to `packageId` (its VNFD, product fields); package usage states follow. */
    async switchInstancePackage({ opOccId, packageId }: { opOccId: string; packageId: string }): Promise<void> {
      const inst = await (await opContext(deps, opOccId)).instance();
      const pkg = await packageById(db, packageId);
      if (!pkg) throw ApplicationFailure.nonRetryable(`VNF package ${packageId} is gone`, 'InvalidInput');
      await updateInstanceAndOpOcc(db, {
        instanceId: inst.id,
        instance: {
          vnfPkgId: pkg.id, vnfdId: pkg.vnfdId!, vnfProvider: pkg.vnfProvider!, vnfProductName: pkg.vnfProductName!,
          vnfSoftwareVersion: pkg.vnfSoftwareVersion!, vnfdVersion: pkg.vnfdVersion!,
        },
        opOccId,
        opOcc: { changedInfo: { vnfdId: pkg.vnfdId, vnfPkgId: pkg.id, vnfProvider: pkg.vnfProvider, vnfProductName: pkg.vnfProductName, vnfSoftwareVersion: pkg.vnfSoftwareVersion, vnfdVersion: pkg.vnfdVersion } },
        packagesInvolved: [inst.vnfPkgId, pkg.id],
      });
    },

    /** The instance's VNFCs at the layout's indices (BlueGreen's new ones, once created and recorded). */
    async vnfcsNamed({ opOccId, layout }: { opOccId: string; layout: VnfcLayout }): Promise<RollingTarget[]> {
      const inst = await (await opContext(deps, opOccId)).instance();
      const names = Object.entries(layout).flatMap(([vduId, idx]) => idx.map((i) => indexedName(vduId, i)));
      const vnfcs = instantiatedInfoOf(inst).vnfcResourceInfo;
      return names.map((name) => {
        const v = vnfcs.find((c) => c.metadata.heatResourceName === name);
        if (!v) throw ApplicationFailure.nonRetryable(`VNFC ${name} is not part of instance ${inst.id}`, 'InvalidInput');
        return { vnfcId: v.id, vduId: v.vduId, heatResourceName: name };
      });
    },

    // The single exchanges, as activities: kept for histories from before the waits queue (COORD_WAIT_PATCH).
    coordPost: exchanges.post,
    coordGet: exchanges.get,
    coordCancel: exchanges.cancel,

    /** The wait for one VNFC's decision: the decision at once, or parked in the store for the worker's poller to complete (coordination-parking.ts). */
    async awaitCoordinationResult(a: CoordArgs & { deadline: number; timeoutMs: number }): Promise<LcmCoord> {
      return redact(await parkForDecision(db, exchanges, a));
    },

    /** The op gives up the wait (an operator cancel): the pending coordination is cancelled on the EM. */
    async cancelCoordinationWait(a: CoordArgs): Promise<void> {
      await dropParkedWait(db, exchanges, a);
    },

    /** Histories from before COORD_PARK_PATCH, on the waits queue: the whole wait for one VNFC's decision as one heartbeating activity (coordination-wait.ts). */
    async awaitCoordination(a: CoordArgs & { deadline: number; timeoutMs: number }): Promise<LcmCoord> {
      const { deadline, timeoutMs, ...args } = a;
      // the op occ, the instance and the decrypted vnfc_param read once per attempt, not again at every poll
      let loaded: Promise<Exchanging> | undefined;
      const once = exchangesWith((x) => (loaded ??= exchanging(x)));
      return redact(await awaitDecision(once, args, deadline, timeoutMs));
    },
  };
}

export type ChangeVnfpkgActivities = ReturnType<typeof changeVnfpkgActivities>;
