/**
 * Reference checks and create order. A resource depends on every resource it
 * names through get_resource, get_attr or depends_on; resources are created in
 * dependency order and a cycle is a template error, as in Heat.
 */
import type { HotTemplate } from '../state/model';
import { TemplateError } from './errors';
import { forEachFunctionCall } from './functions';
import { outputsOf, resourceDefinition, resourcesOf } from './template';

const PSEUDO_PARAMETERS = new Set(['OS::stack_name', 'OS::stack_id', 'OS::project_id']);

/** Names of the resources a resource definition refers to (same stack). */
export function referencedResources(tpl: HotTemplate, name: string): string[] {
  const def = resourceDefinition(tpl, name);
  const refs = new Set<string>(def.depends_on);
  forEachFunctionCall(def.properties, (fn, args) => {
    const target = fn === 'get_resource' ? args : fn === 'get_attr' && Array.isArray(args) ? args[0] : undefined;
    if (typeof target === 'string') refs.add(target);
  });
  return [...refs];
}

/** Fails on references to resources or parameters the template does not declare. */
export function validateReferences(tpl: HotTemplate, label: string): void {
  const resources = resourcesOf(tpl);
  const params = (tpl.parameters ?? {}) as Record<string, unknown>;
  const checkCalls = (value: unknown, where: string) =>
    forEachFunctionCall(value, (fn, args) => {
      if (fn === 'get_resource' || fn === 'get_attr') {
        const target = fn === 'get_resource' ? args : Array.isArray(args) ? args[0] : undefined;
        if (typeof target === 'string' && !(target in resources)) {
          throw new TemplateError(`The specified reference "${target}" (in ${where}) is incorrect.`, 'InvalidTemplateReference');
        }
      }
      if (fn === 'get_param') {
        const param = Array.isArray(args) ? args[0] : args;
        if (typeof param === 'string' && !(param in params) && !PSEUDO_PARAMETERS.has(param)) {
          throw new TemplateError(`The Parameter (${param}) was not provided (referenced in ${where}).`, 'UserParameterMissing');
        }
      }
    });

  for (const name of Object.keys(resources)) {
    const where = `${label} resources.${name}`;
    const def = resourceDefinition(tpl, name);
    for (const dep of def.depends_on) {
      if (!(dep in resources)) {
        throw new TemplateError(`The specified reference "${dep}" (in ${where}) is incorrect.`, 'InvalidTemplateReference');
      }
    }
    checkCalls(def.properties, where);
  }
  for (const [key, out] of Object.entries(outputsOf(tpl))) checkCalls(out.value, `${label} outputs.${key}`);
}

/**
 * Topological create order. Among resources that are ready at the same time,
 * networks go first and subnets second: Heat makes ports wait for the subnets
 * of their network, and a port in a nested stack should find its subnet; then
 * template order. (Kahn's algorithm: linear in references, so a root template
 * with 1,000 VNFC resources plans in milliseconds.)
 */
export function creationOrder(tpl: HotTemplate, label: string): string[] {
  const names = Object.keys(resourcesOf(tpl));
  const deps = new Map(names.map((n) => [n, new Set(referencedResources(tpl, n))]));
  const rank = (type: string) => (type === 'OS::Neutron::Net' ? 0 : type === 'OS::Neutron::Subnet' ? 1 : 2);
  const priority = new Map(names.map((n, i) => [n, rank(resourceDefinition(tpl, n).type) * names.length + i]));
  const waitingOn = new Map(names.map((n) => [n, [...deps.get(n)!].filter((d) => priority.has(d)).length]));
  const dependents = new Map(names.map((n) => [n, [] as string[]]));
  for (const [n, ds] of deps) for (const d of ds) dependents.get(d)?.push(n);

  const order: string[] = [];
  const ready = names.filter((n) => waitingOn.get(n) === 0);
  while (ready.length > 0) {
    let best = 0;
    for (let i = 1; i < ready.length; i++) if (priority.get(ready[i])! < priority.get(ready[best])!) best = i;
    const [next] = ready.splice(best, 1);
    order.push(next);
    for (const m of dependents.get(next)!) {
      waitingOn.set(m, waitingOn.get(m)! - 1);
      if (waitingOn.get(m) === 0) ready.push(m);
    }
  }
  if (order.length < names.length) {
    throw new TemplateError(`Circular Dependency Found: ${describeCycle(names, deps, new Set(order))} (in ${label})`, 'CircularDependencyException');
  }
  return order;
}

function describeCycle(names: string[], deps: Map<string, Set<string>>, done: Set<string>): string {
  // Walk unfinished dependencies from any blocked resource until a name repeats.
  const path: string[] = [];
  let current = names.find((n) => !done.has(n))!;
  while (!path.includes(current)) {
    path.push(current);
    current = [...deps.get(current)!].find((d) => !done.has(d))!;
  }
  return [...path.slice(path.indexOf(current)), current].join(' -> ');
}
