/**
 * Which Heat resource types a VNF package's templates may use
 * (HEAT_RESOURCE_TYPES): a tenant's BaseHOT runs with the VIM's credentials,
 * and a type such as OS::Keystone::UserRoleAssignment or a volume attachment
 * of any volume id would reach past its project (security review 3, C-1).
 * Checked on every template of a stack (top, nested files) and on the
 * member definitions of Heat's groups, which are resources too; a type that
 * is not a string (an intrinsic function resolved at run time) or names a
 * template that is not one of the stack's files (a URL Heat would fetch) is
 * refused as well.
 */
import { isObject } from './template-walk';

/**
 * Servers, ports, networks, subnets, floating IPs, volumes and attachments, server groups, Heat groups and
 * scaling policies; and flavours, which the template generated from a VNFD makes for a VDU that names none
 * (seed 000's private registry VDU, as Tacker does): a flavour reaches no other project's resources.
 */
export const DEFAULT_HEAT_RESOURCE_TYPES: readonly string[] = [
  'OS::Nova::Server', 'OS::Nova::ServerGroup', 'OS::Nova::Flavor',
  'OS::Neutron::Port', 'OS::Neutron::Net', 'OS::Neutron::Subnet', 'OS::Neutron::FloatingIP', 'OS::Neutron::FloatingIPAssociation',
  'OS::Cinder::Volume', 'OS::Cinder::VolumeAttachment',
  'OS::Heat::ResourceGroup', 'OS::Heat::AutoScalingGroup', 'OS::Heat::ScalingPolicy',
];

const TYPE_NAME = /^[A-Za-z0-9]+(::[A-Za-z0-9]+)+$/;

/** HEAT_RESOURCE_TYPES: comma-separated type names, where `default` stands for the default list (e.g. "default,OS::Cinder::VolumeType"). */
export function resourceTypesFromSetting(setting: string | undefined): string[] {
  if (!setting?.trim()) return [...DEFAULT_HEAT_RESOURCE_TYPES];
  const out = new Set<string>();
  for (const entry of setting.split(',').map((e) => e.trim()).filter(Boolean)) {
    if (entry === 'default') DEFAULT_HEAT_RESOURCE_TYPES.forEach((t) => out.add(t));
    else if (TYPE_NAME.test(entry)) out.add(entry);
    else throw new Error(`HEAT_RESOURCE_TYPES: "${entry}" is not a Heat resource type name (such as OS::Nova::Server) nor "default"`);
  }
  return [...out];
}

/** One resource a template may not have: the package file (or the generated template), the resource's name, its type. */
export interface TemplateViolation { file: string; resource: string; type: string }

export class TemplatePolicyRefused extends Error {
  constructor(readonly violations: TemplateViolation[]) {
    super(`the package's templates use resource types this deployment does not allow (HEAT_RESOURCE_TYPES): ${
      violations.map((v) => `${v.file}: resource "${v.resource}" of type ${v.type}`).join('; ')}`);
    this.name = 'TemplatePolicyRefused';
  }
}

/** A template's own resources and its groups' members: [resource name, type as written]. */
function typesIn(template: unknown): [string, unknown][] {
  const resources = isObject(template) && isObject(template.resources) ? template.resources : {};
  const out: [string, unknown][] = [];
  for (const [name, r] of Object.entries(resources)) {
    const res = isObject(r) ? r : {};
    out.push([name, res.type]);
    const props = isObject(res.properties) ? res.properties : {};
    if (res.type === 'OS::Heat::ResourceGroup' && 'resource_def' in props) out.push([`${name}.resource_def`, isObject(props.resource_def) ? props.resource_def.type : undefined]);
    if (res.type === 'OS::Heat::AutoScalingGroup' && 'resource' in props) out.push([`${name}.resource`, isObject(props.resource) ? props.resource.type : undefined]);
  }
  return out;
}

/**
 * The resources of these templates whose type is neither allowed nor one of `ownTemplates` (the nested
 * files the stack carries), in file order.
 */
export function templateViolations(templates: { file: string; template: unknown }[], ownTemplates: Iterable<string>, allowed: Iterable<string>): TemplateViolation[] {
  const ok = new Set([...allowed, ...ownTemplates]);
  return templates.flatMap(({ file, template }) => typesIn(template)
    .filter(([, type]) => typeof type !== 'string' || !ok.has(type))
    .map(([resource, type]) => ({ file, resource, type: typeof type === 'string' ? type : `(not a type name: ${JSON.stringify(type) ?? 'none'})` })));
}

export function checkTemplates(templates: { file: string; template: unknown }[], ownTemplates: Iterable<string>, allowed: Iterable<string>): void {
  const violations = templateViolations(templates, ownTemplates, allowed);
  if (violations.length) throw new TemplatePolicyRefused(violations);
}
