/**
 * Resources that own a nested stack: template resources (a `type` naming a
 * file of the request) and the groups. A group's nested stack holds one
 * resource per member, each of the group's member type; when that type is a
 * template file every member is itself a nested stack, as in Heat.
 */
import type { HotTemplate, ResourceRecord, StackRecord } from '../../state/model';
import { shortId } from '../../util/ids';
import type { AttributeView, ResourceBehaviour, ResourceContext } from '../behaviour';
import { TemplateError } from '../errors';
import { isPlainObject, parseTemplateFile } from '../template';

function nestedStackOf(view: AttributeView, res: ResourceRecord): StackRecord | undefined {
  return res.nestedStackId ? view.state.stacks[res.nestedStackId] : undefined;
}

/** Members of a group, oldest first; members being removed do not count. */
function liveMembers(view: AttributeView, res: ResourceRecord): ResourceRecord[] {
  return nestedStackOf(view, res)?.resources.filter((m) => m.action !== 'DELETE') ?? [];
}

function outputsMap(stack: StackRecord | undefined): Record<string, unknown> {
  return Object.fromEntries((stack?.outputs ?? []).map((o) => [o.key, o.value]));
}

function fileTemplate(ctx: ResourceContext, res: ResourceRecord): HotTemplate {
  const file = res.impl.slice('file:'.length);
  return parseTemplateFile(ctx.stack.files[file], `template file "${file}"`);
}

export const templateResource: ResourceBehaviour = {
  nested: true,
  create(ctx, res) {
    res.physicalId = ctx.nested.create(res, fileTemplate(ctx, res), res.props);
  },
  update(ctx, res) {
    ctx.nested.update(res, fileTemplate(ctx, res), res.props);
  },
  attributes(view, res) {
    // The nested stack's outputs are the resource's attributes.
    return { ...outputsMap(nestedStackOf(view, res)), 'OS::stack_id': res.nestedStackId };
  },
};

interface MemberDefinition {
  type: string;
  properties: Record<string, unknown>;
}

function memberDefinition(raw: unknown, property: string, owner: string): MemberDefinition {
  if (!isPlainObject(raw) || typeof raw.type !== 'string') {
    throw new TemplateError(`Property error: resources.${owner}.properties.${property}: must be a map with a "type"`);
  }
  return { type: raw.type, properties: isPlainObject(raw.properties) ? raw.properties : {} };
}

function groupTemplate(members: [string, MemberDefinition][]): HotTemplate {
  return { heat_template_version: '2015-04-30', resources: Object.fromEntries(members) };
}

function toInt(value: unknown, property: string, owner: string): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new TemplateError(`Property error: resources.${owner}.properties.${property}: "${String(value)}" is not a valid non-negative integer`);
  }
  return n;
}

function groupAttributes(view: AttributeView, res: ResourceRecord): Record<string, unknown> {
  const members = liveMembers(view, res);
  const memberOutputs = members.map((m) => [m.name, outputsMap(m.nestedStackId ? view.state.stacks[m.nestedStackId] : undefined)] as const);
  const outputKeys = [...new Set(memberOutputs.flatMap(([, o]) => Object.keys(o)))];
  return {
    current_size: members.length,
    refs: members.map((m) => m.physicalId),
    refs_map: Object.fromEntries(members.map((m) => [m.name, m.physicalId])),
    outputs: Object.fromEntries(outputKeys.map((k) => [k, Object.fromEntries(memberOutputs.map(([n, o]) => [n, o[k] ?? null]))])),
    outputs_list: Object.fromEntries(outputKeys.map((k) => [k, memberOutputs.map(([, o]) => o[k] ?? null)])),
  };
}

/** OS::Heat::AutoScalingGroup: members get random 12-character names; scaling in drops the newest. */
export const autoScalingGroup: ResourceBehaviour = {
  nested: true,
  required: ['resource', 'min_size', 'max_size'],
  create(ctx, res) {
    const { member, capacity } = autoScalingSpec(res);
    const names = Array.from({ length: capacity }, () => shortId());
    res.physicalId = ctx.nested.create(res, groupTemplate(names.map((n) => [n, member])), {});
  },
  update(ctx, res) {
    const { member, capacity } = autoScalingSpec(res);
    const current = liveMembers(ctx, res).map((m) => m.name);
    const names = capacity <= current.length
      ? current.slice(0, capacity)
      : [...current, ...Array.from({ length: capacity - current.length }, () => shortId())];
    ctx.nested.update(res, groupTemplate(names.map((n) => [n, member])), {});
  },
  attributes: groupAttributes,
};

function autoScalingSpec(res: ResourceRecord): { member: MemberDefinition; capacity: number } {
  const member = memberDefinition(res.props.resource, 'resource', res.name);
  const min = toInt(res.props.min_size, 'min_size', res.name);
  const max = toInt(res.props.max_size, 'max_size', res.name);
  const desired = res.props.desired_capacity === undefined || res.props.desired_capacity === null
    ? min
    : toInt(res.props.desired_capacity, 'desired_capacity', res.name);
  if (min > max) throw new TemplateError(`resources.${res.name}: min_size can not be greater than max_size`);
  if (desired < min || desired > max) {
    throw new TemplateError(`resources.${res.name}: desired_capacity must be between min_size (${min}) and max_size (${max})`);
  }
  return { member, capacity: desired };
}

/** OS::Heat::ResourceGroup: members "0".."count-1"; %index% in the definition becomes the member index. */
export const resourceGroup: ResourceBehaviour = {
  nested: true,
  required: ['resource_def'],
  create(ctx, res) {
    res.physicalId = ctx.nested.create(res, resourceGroupTemplate(res), {});
  },
  update(ctx, res) {
    ctx.nested.update(res, resourceGroupTemplate(res), {});
  },
  attributes(view, res) {
    const base = groupAttributes(view, res);
    // "resource.N" / "resource.N.attr" are handled generically by the planner's get_attr.
    return { ...base, attributes: {} };
  },
};

function resourceGroupTemplate(res: ResourceRecord): HotTemplate {
  const def = memberDefinition(res.props.resource_def, 'resource_def', res.name);
  const count = res.props.count === undefined || res.props.count === null ? 1 : toInt(res.props.count, 'count', res.name);
  const indexVar = typeof res.props.index_var === 'string' ? res.props.index_var : '%index%';
  const substitute = (v: unknown, index: string): unknown => {
    if (typeof v === 'string') return v.split(indexVar).join(index);
    if (Array.isArray(v)) return v.map((x) => substitute(x, index));
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, index)]));
    return v;
  };
  return groupTemplate(
    Array.from({ length: count }, (_, i) => [String(i), { type: def.type, properties: substitute(def.properties, String(i)) as Record<string, unknown> }]),
  );
}
