/**
 * How many VNFCs each VDU gets, from the VNFD's instantiation levels and
 * scaling aspects (ETSI SOL001 policies as modelled in vnfd-model.ts).
 */
import type { VnfdFlavour } from '../../model/vnfd';

/** The level an instantiate request means: the given one, else the VNFD default. */
export function effectiveLevelId(flavour: VnfdFlavour, levelId?: string): string | undefined {
  return levelId ?? flavour.instantiationLevels.defaultLevel;
}

function levelIsKnown(flavour: VnfdFlavour, levelId: string): boolean {
  if (levelId in flavour.instantiationLevels.levels) return true;
  // A VNFD may name levels only in VduInstantiationLevels; accept those too.
  return Object.values(flavour.vduInstantiationLevels).some((byLevel) => levelId in byLevel);
}

function initialCount(flavour: VnfdFlavour, vduId: string): number {
  return flavour.vduInitialDelta[vduId] ?? flavour.vdus[vduId].minInstances;
}

/**
 * Instances a VDU gains at `level` of one aspect. SOL001: step_deltas[k] is
 * applied for step k+1; when there are fewer deltas than steps the last repeats
 * (a single delta = uniform scaling, the only kind Tacker supports).
 */
function aspectIncrement(flavour: VnfdFlavour, aspectId: string, vduId: string, level: number): number {
  const aspect = flavour.scalingAspects[aspectId];
  const deltas = flavour.vduScalingAspectDeltas[aspectId]?.[vduId];
  if (!aspect || !deltas || aspect.stepDeltas.length === 0) return 0;
  let sum = 0;
  for (let step = 0; step < level; step++) {
    const deltaId = aspect.stepDeltas[Math.min(step, aspect.stepDeltas.length - 1)];
    sum += deltas[deltaId] ?? 0;
  }
  return sum;
}

/** vduId -> VNFC count for aspect scale levels, clamped to the VDU's [min, max]. */
export function vduCountsForScaleLevels(flavour: VnfdFlavour, scaleLevels: Record<string, number>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [vduId, vdu] of Object.entries(flavour.vdus)) {
    let n = initialCount(flavour, vduId);
    for (const aspectId of Object.keys(flavour.scalingAspects)) {
      n += aspectIncrement(flavour, aspectId, vduId, scaleLevels[aspectId] ?? 0);
    }
    counts[vduId] = Math.min(Math.max(n, vdu.minInstances), vdu.maxInstances);
  }
  return counts;
}

/**
 * vduId -> VNFC count for an instantiation level (default level when absent).
 * Per VDU: VduInstantiationLevels for the level; else the level's scale_info
 * applied to the aspects; else VduInitialDelta; else the VDU's min instances.
 */
export function vduCountsForLevel(flavour: VnfdFlavour, levelId?: string): Record<string, number> {
  if (levelId !== undefined && !levelIsKnown(flavour, levelId)) {
    throw new Error(`Unknown instantiation level "${levelId}" for flavour "${flavour.flavourId}"`);
  }
  const level = effectiveLevelId(flavour, levelId);
  const scaleInfo = level !== undefined ? flavour.instantiationLevels.levels[level]?.scaleInfo : undefined;
  const byScale = scaleInfo ? vduCountsForScaleLevels(flavour, scaleInfo) : undefined;
  const counts: Record<string, number> = {};
  for (const vduId of Object.keys(flavour.vdus)) {
    const explicit = level !== undefined ? flavour.vduInstantiationLevels[vduId]?.[level] : undefined;
    counts[vduId] = explicit ?? byScale?.[vduId] ?? initialCount(flavour, vduId);
  }
  return counts;
}

/** aspectId -> scale level an instantiation level starts at (0 when unnamed). */
export function scaleStatusForLevel(flavour: VnfdFlavour, levelId?: string): { aspectId: string; scaleLevel: number }[] {
  const level = effectiveLevelId(flavour, levelId);
  const scaleInfo = (level !== undefined ? flavour.instantiationLevels.levels[level]?.scaleInfo : undefined) ?? {};
  return Object.keys(flavour.scalingAspects).map((aspectId) => ({ aspectId, scaleLevel: scaleInfo[aspectId] ?? 0 }));
}
