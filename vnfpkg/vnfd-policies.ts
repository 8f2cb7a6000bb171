import type { DfContext } from './df-context';
import { PackageError } from './package-error';
import { NFV } from './tosca-types';
import type { InstantiationLevels, ScalingAspect, VnfdFlavour } from '../model/vnfd';
import {
  isMap, optMap, optString, reqNumber, singleKeyEntries, stringList, type YamlMap,
} from './yaml-values';

export type FlavourPolicies = Pick<VnfdFlavour,
  'scalingAspects' | 'vduInitialDelta' | 'vduScalingAspectDeltas' | 'instantiationLevels' | 'vduInstantiationLevels'>;

/**
 * Reads the scaling and instantiation-level policies of one flavour
 * (topology_template.policies, a list of single-key maps) and checks that
 * they only refer to VDUs, aspects and levels the flavour declares.
 * Other policy types (affinity rules, VL bitrates, …) are ignored.
 */
export function readPolicies(ctx: DfContext, policies: unknown, vduIds: Set<string>): FlavourPolicies {
  const result: FlavourPolicies = {
    scalingAspects: {},
    vduInitialDelta: {},
    vduScalingAspectDeltas: {},
    instantiationLevels: { levels: {} },
    vduInstantiationLevels: {},
  };
  // Cross-references are checked once every policy is read: policy order is free.
  const checks: (() => void)[] = [];

  for (const [name, value] of singleKeyEntries(policies, ctx.file, 'topology_template.policies')) {
    const where = `${ctx.file}: policy ${name}`;
    if (!isMap(value)) throw new PackageError(`${where}: must be a mapping with a type`);
    const policy = { name, where, type: value.type, props: optMap(value.properties, where, 'properties') ?? {} };
    const vduTargets = () => targetVdus(value, where, vduIds);
    const isA = (base: string) => ctx.types.isPolicyA(policy.type, base);

    if (isA(NFV.SCALING_ASPECTS)) {
      readScalingAspects(policy, result.scalingAspects);
    } else if (isA(NFV.VDU_INITIAL_DELTA)) {
      const delta = optMap(policy.props.initial_delta, where, 'properties.initial_delta');
      const count = reqNumber(delta?.number_of_instances, where, 'initial_delta.number_of_instances');
      for (const vdu of vduTargets()) result.vduInitialDelta[vdu] = count;
    } else if (isA(NFV.VDU_SCALING_ASPECT_DELTAS)) {
      const aspect = readVduDeltas(policy, vduTargets(), result.vduScalingAspectDeltas);
      checks.push(() => requireAspect(result, aspect, where));
    } else if (isA(NFV.INSTANTIATION_LEVELS)) {
      readInstantiationLevels(policy, result.instantiationLevels);
      checks.push(() => checkLevelAspects(result, policy));
    } else if (isA(NFV.VDU_INSTANTIATION_LEVELS)) {
      const levelIds = readVduLevels(policy, vduTargets(), result.vduInstantiationLevels);
      checks.push(() => levelIds.forEach((level) => requireLevel(result.instantiationLevels, level, where)));
    }
  }
  checks.forEach((check) => check());
  return result;
}

interface Policy {
  name: string;
  where: string;
  props: YamlMap;
}

function readScalingAspects({ where, props }: Policy, into: Record<string, ScalingAspect>): void {
  const aspects = optMap(props.aspects, where, 'properties.aspects') ?? {};
  for (const [id, aspect] of Object.entries(aspects)) {
    const what = `aspects.${id}`;
    if (!isMap(aspect)) throw new PackageError(`${where}: ${what} must be a mapping`);
    into[id] = {
      id,
      name: optString(aspect.name, where, `${what}.name`) ?? id,
      description: optString(aspect.description, where, `${what}.description`),
      maxScaleLevel: reqNumber(aspect.max_scale_level, where, `${what}.max_scale_level`),
      stepDeltas: stringList(aspect.step_deltas, where, `${what}.step_deltas`),
    };
  }
}

/** Returns the aspect the deltas belong to. */
function readVduDeltas(
  { where, props }: Policy,
  vdus: string[],
  into: FlavourPolicies['vduScalingAspectDeltas'],
): string {
  const aspect = optString(props.aspect, where, 'properties.aspect');
  if (aspect === undefined) throw new PackageError(`${where}: properties.aspect is missing`);
  const deltas = optMap(props.deltas, where, 'properties.deltas') ?? {};
  const perAspect = (into[aspect] ??= {});
  for (const vdu of vdus) {
    const perVdu = (perAspect[vdu] ??= {});
    for (const [deltaId, delta] of Object.entries(deltas)) {
      perVdu[deltaId] = reqNumber(isMap(delta) ? delta.number_of_instances : undefined, where,
        `deltas.${deltaId}.number_of_instances`);
    }
  }
  return aspect;
}

function readInstantiationLevels({ where, props }: Policy, into: InstantiationLevels): void {
  const levels = optMap(props.levels, where, 'properties.levels') ?? {};
  for (const [levelId, level] of Object.entries(levels)) {
    const what = `levels.${levelId}`;
    if (!isMap(level)) throw new PackageError(`${where}: ${what} must be a mapping`);
    const scaleInfo: Record<string, number> = {};
    for (const [aspect, info] of Object.entries(optMap(level.scale_info, where, `${what}.scale_info`) ?? {})) {
      scaleInfo[aspect] = reqNumber(isMap(info) ? info.scale_level : undefined, where,
        `${what}.scale_info.${aspect}.scale_level`);
    }
    into.levels[levelId] = { description: optString(level.description, where, `${what}.description`), scaleInfo };
  }
  const defaultLevel = optString(props.default_level, where, 'properties.default_level');
  if (defaultLevel !== undefined) {
    requireLevel(into, defaultLevel, where);
    into.defaultLevel = defaultLevel;
  }
}

/** Returns the level ids the policy refers to. */
function readVduLevels(
  { where, props }: Policy,
  vdus: string[],
  into: FlavourPolicies['vduInstantiationLevels'],
): string[] {
  const levels = optMap(props.levels, where, 'properties.levels') ?? {};
  for (const vdu of vdus) {
    const perVdu = (into[vdu] ??= {});
    for (const [levelId, level] of Object.entries(levels)) {
      perVdu[levelId] = reqNumber(isMap(level) ? level.number_of_instances : undefined, where,
        `levels.${levelId}.number_of_instances`);
    }
  }
  return Object.keys(levels);
}

function targetVdus(policy: YamlMap, where: string, vduIds: Set<string>): string[] {
  const targets = stringList(policy.targets, where, 'targets');
  if (targets.length === 0) throw new PackageError(`${where}: targets is missing (the VDUs the policy applies to)`);
  for (const target of targets) {
    if (!vduIds.has(target)) {
      throw new PackageError(`${where}: targets "${target}", which is not a VDU of this flavour`);
    }
  }
  return targets;
}

function requireAspect(policies: FlavourPolicies, aspect: string, where: string): ScalingAspect {
  const found = policies.scalingAspects[aspect];
  if (!found) {
    throw new PackageError(`${where}: refers to scaling aspect "${aspect}", which no ScalingAspects policy of this flavour declares`);
  }
  return found;
}

function checkLevelAspects(policies: FlavourPolicies, { where }: Policy): void {
  for (const [levelId, level] of Object.entries(policies.instantiationLevels.levels)) {
    for (const [aspectId, scaleLevel] of Object.entries(level.scaleInfo)) {
      const aspect = requireAspect(policies, aspectId, `${where}: level ${levelId}`);
      if (scaleLevel < 0 || scaleLevel > aspect.maxScaleLevel) {
        throw new PackageError(
          `${where}: level ${levelId} sets aspect ${aspectId} to scale_level ${scaleLevel}, outside 0..${aspect.maxScaleLevel}`,
        );
      }
    }
  }
}

function requireLevel(levels: InstantiationLevels, levelId: string, where: string): void {
  if (!levels.levels[levelId]) {
    throw new PackageError(`${where}: refers to instantiation level "${levelId}", which no InstantiationLevels policy of this flavour declares`);
  }
}
