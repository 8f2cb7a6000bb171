/**
 * What a ScaleVnfRequest means for an instance: the aspect's new level, the
 * VNFC count per VDU before and after, and which VNFCs a scale-in removes:
 * the highest index first where the template has one resource per VNFC, the
 * oldest members first where an AutoScalingGroup holds the VDU (that is what
 * Heat removes). Pure; the API validates with it and the scale workflow
 * executes it.
 */
import type { VnfdFlavour } from '../model/vnfd';
import { vduCountsForScaleLevels, vnfcIndex } from './hot';
import type { InstantiatedVnfInfo } from './vnf-info';

export interface ScaleRequest { type: 'SCALE_OUT' | 'SCALE_IN'; aspectId: string; numberOfSteps?: number }
type ScaleStatus = { aspectId: string; scaleLevel: number }[];
export interface ScalePlan {
  before: { counts: Record<string, number>; scaleStatus: ScaleStatus };
  after: { counts: Record<string, number>; scaleStatus: ScaleStatus };
  removedVnfcIds: string[];
}

/** Throws an Error whose message names the offending field. */
export function planScale(flavour: VnfdFlavour, info: InstantiatedVnfInfo, req: ScaleRequest): ScalePlan {
  const aspect = flavour.scalingAspects[req.aspectId];
  if (!aspect) throw new Error(`aspectId: "${req.aspectId}" is not a scaling aspect of flavour ${flavour.flavourId} (${Object.keys(flavour.scalingAspects).join(', ') || 'none'})`);
  const steps = req.numberOfSteps ?? 1;
  const levels = Object.fromEntries(info.scaleStatus.map((s) => [s.aspectId, s.scaleLevel]));
  const from = levels[req.aspectId] ?? 0;
  const to = req.type === 'SCALE_OUT' ? from + steps : from - steps;
  if (to > aspect.maxScaleLevel) throw new Error(`numberOfSteps: scaling out ${steps} step(s) from level ${from} would exceed max_scale_level ${aspect.maxScaleLevel} of ${req.aspectId}`);
  if (to < 0) throw new Error(`numberOfSteps: scaling in ${steps} step(s) from level ${from} would go below level 0 of ${req.aspectId}`);
  const newLevels = { ...levels, [req.aspectId]: to };
  const current = Object.fromEntries(Object.keys(flavour.vdus).map((v) => [v, 0]));
  for (const v of info.vnfcResourceInfo) current[v.vduId] = (current[v.vduId] ?? 0) + 1;
  const base = vduCountsForScaleLevels(flavour, levels);
  const next = vduCountsForScaleLevels(flavour, newLevels);
  const counts: Record<string, number> = {};
  const removedVnfcIds: string[] = [];
  for (const [vduId, n] of Object.entries(current)) {
    const vdu = flavour.vdus[vduId];
    counts[vduId] = n + (next[vduId] - base[vduId]);
    if (counts[vduId] > vdu.maxInstances || counts[vduId] < vdu.minInstances) {
      throw new Error(`numberOfSteps: ${vduId} would have ${counts[vduId]} VNFCs, outside its vdu_profile ${vdu.minInstances}..${vdu.maxInstances}`);
    }
    if (counts[vduId] < n) removedVnfcIds.push(...removalOrder(info, vduId).slice(0, n - counts[vduId]));
  }
  return {
    before: { counts: current, scaleStatus: info.scaleStatus },
    after: { counts, scaleStatus: info.scaleStatus.map((s) => (s.aspectId === req.aspectId ? { ...s, scaleLevel: to } : s)) },
    removedVnfcIds,
  };
}

/**
 * A VDU's VNFC ids in the order a scale-in removes them: "VDU1-2" before
 * "VDU1-1"; AutoScalingGroup members oldest first, as Heat's group keeps the
 * newest ones (by creation time, then name).
 */
export function removalOrder(info: InstantiatedVnfInfo, vduId: string): string[] {
  const vnfcs = info.vnfcResourceInfo.filter((v) => v.vduId === vduId);
  const index = (name: string) => vnfcIndex(name, vduId) ?? -1;
  const byAge = (a: typeof vnfcs[number], b: typeof vnfcs[number]) =>
    String(a.metadata.memberCreatedAt).localeCompare(String(b.metadata.memberCreatedAt))
    || a.metadata.heatResourceName.localeCompare(b.metadata.heatResourceName);
  const grouped = vnfcs.some((v) => v.metadata.memberCreatedAt);
  return vnfcs.sort(grouped ? byAge : (a, b) => index(b.metadata.heatResourceName) - index(a.metadata.heatResourceName)).map((v) => v.id);
}
