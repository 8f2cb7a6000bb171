/**
 * Which VNFCs of each VDU a stack holds, by index: VDU1: [0, 1] is the
 * resources "VDU1-0" and "VDU1-1". Counts are the usual case (0..n-1); a
 * BlueGreen change_vnfpkg puts the new VNFCs beside the old ones
 * (VDU1: [0, 1, 2, 3]) and then keeps only the new ones ([2, 3]), so later
 * stack updates must keep the indices the instance has, not renumber them.
 * For a VDU in an AutoScalingGroup only the length counts (the group's capacity).
 */
import type { InstantiatedVnfInfo } from '../../model/instantiated-vnf-info';

export type VnfcLayout = Record<string, number[]>;

/** Indices 0..n-1 per VDU; an invalid count is left out (the builder names the VDU). */
export function layoutOf(counts: Record<string, number>): VnfcLayout {
  const out: VnfcLayout = {};
  for (const [vduId, n] of Object.entries(counts)) {
    if (Number.isInteger(n) && n >= 0) out[vduId] = Array.from({ length: n }, (_, i) => i);
  }
  return out;
}

/** The index in a per-VNFC resource name ("VDU1-2" -> 2), else undefined (an AutoScalingGroup member). */
export function vnfcIndex(heatResourceName: string, vduId: string): number | undefined {
  const m = /^(.*)-(\d+)$/.exec(heatResourceName);
  return m && m[1] === vduId ? Number(m[2]) : undefined;
}

/** The instance's layout now: its VNFCs' indices, ascending (group members by position). */
export function currentLayout(info: InstantiatedVnfInfo | null | undefined, vduIds: string[]): VnfcLayout {
  const out: VnfcLayout = Object.fromEntries(vduIds.map((v) => [v, []]));
  for (const v of info?.vnfcResourceInfo ?? []) {
    const list = (out[v.vduId] ??= []);
    list.push(vnfcIndex(v.metadata.heatResourceName, v.vduId) ?? list.length);
  }
  for (const list of Object.values(out)) list.sort((a, b) => a - b);
  return out;
}

/**
 * `counts` VNFCs per VDU, keeping the current ones: a scale-out adds indices
 * above the highest, a scale-in drops the highest first (infra/scale-plan.ts's
 * removal order).
 */
export function resizeLayout(current: VnfcLayout, counts: Record<string, number>): VnfcLayout {
  const out: VnfcLayout = {};
  for (const [vduId, n] of Object.entries(counts)) {
    if (!Number.isInteger(n) || n < 0) continue;
    const have = [...(current[vduId] ?? [])].sort((a, b) => a - b);
    let next = have.length ? have[have.length - 1] + 1 : 0;
    while (have.length < n) have.push(next++);
    out[vduId] = have.slice(0, n);
  }
  return out;
}

/** `extra` new indices per VDU above every current one: where a BlueGreen update creates its new VNFCs. */
export function besideLayout(current: VnfcLayout, extra: Record<string, number>): VnfcLayout {
  const grown = resizeLayout(current, Object.fromEntries(Object.entries(extra).map(([v, n]) => [v, (current[v]?.length ?? 0) + n])));
  return Object.fromEntries(Object.entries(grown).map(([v, idx]) => [v, idx.slice(current[v]?.length ?? 0)]));
}

/** Per VDU, the union of the layouts' indices, ascending. */
export function mergeLayouts(...layouts: VnfcLayout[]): VnfcLayout {
  const out: VnfcLayout = {};
  for (const l of layouts) for (const [vduId, idx] of Object.entries(l)) out[vduId] = [...new Set([...(out[vduId] ?? []), ...idx])].sort((a, b) => a - b);
  return out;
}
