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
