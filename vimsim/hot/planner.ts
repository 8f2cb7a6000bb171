/**
 * Turns templates into stacks of resources. Planning is synchronous and
 * complete: every resource of the whole tree gets its physical id,
 * properties, addresses and nested stacks at request time, with status
 * *_IN_PROGRESS. The engine later flips the statuses to *_COMPLETE/FAILED;
 * nothing else happens over time. Any template problem throws TemplateError
 * before the caller commits, so a bad request changes nothing.
 */
import type { HotTemplate, ResourceRecord, SimState, StackEnvironment, StackOutput, StackRecord } from '../state/model';
import { findResource } from '../state/stacks';
import { reasons, setResourceStatus, setStackStatus } from '../state/status';
import { newUuid, shortId } from '../util/ids';
import type { AttributeView, ResourceBehaviour, ResourceContext } from './behaviour';
import { creationOrder, referencedResources, validateReferences } from './dependencies';
import { TemplateError } from './errors';
import { evaluate, type EvaluationScope } from './functions';
import { AllocationError } from './network';
import { resolveParameters } from './parameters';
import { descriptionOf, outputsOf, resolveType, resourceDefinition, resourcesOf } from './template';
import { behaviourOf, FILE_IMPL_PREFIX, isBuiltinType } from './types';

export interface PlanSettings {
  state: SimState;
  now: string;
  sshCidr: string;
  /** The root stack's environment; Heat applies it to every nested stack too. */
  environment: StackEnvironment;
}

export interface NewStackSpec {
  name: string;
  projectId: string;
  template: HotTemplate;
  files: Record<string, string>;
  userParams: Record<string, unknown>;
  timeoutMins?: number;
  disableRollback: boolean;
  parent?: { stack: StackRecord; resourceName: string };
}

export interface StackChange {
  template: HotTemplate;
  files: Record<string, string>;
  userParams: Record<string, unknown>;
}

export class Planner {
  constructor(private readonly settings: PlanSettings) {}

  private get state(): SimState {
    return this.settings.state;
  }

  createStack(spec: NewStackSpec): StackRecord {
    const id = newUuid();
    const stack: StackRecord = {
      id,
      name: spec.name,
      projectId: spec.projectId,
      description: descriptionOf(spec.template),
      rootId: spec.parent ? spec.parent.stack.rootId : id,
      parentId: spec.parent?.stack.id,
      parentResource: spec.parent?.resourceName,
      action: 'CREATE',
      status: 'IN_PROGRESS',
      reason: '',
      template: spec.template,
      files: spec.files,
      environment: spec.parent ? { parameters: {}, parameter_defaults: {}, resource_registry: {} } : this.settings.environment,
      userParams: spec.userParams,
      params: {},
      paramTypes: {},
      outputs: [],
      resources: [],
      events: [],
      timeoutMins: spec.timeoutMins,
      disableRollback: spec.disableRollback,
      createdAt: this.settings.now,
    };
    this.state.stacks[id] = stack;
    setStackStatus(stack, 'CREATE', 'IN_PROGRESS', reasons.stackStarted('CREATE'), this.settings.now);
    for (const name of this.prepare(stack)) this.createResource(stack, name);
    stack.outputs = this.computeOutputs(stack);
    return stack;
  }

  /** Diffs the stack against a new template/parameters and plans the difference. */
  updateStack(stack: StackRecord, change: StackChange): void {
    stack.template = change.template;
    stack.files = change.files;
    stack.userParams = change.userParams;
    stack.description = descriptionOf(change.template);
    stack.updatedAt = this.settings.now;
    setStackStatus(stack, 'UPDATE', 'IN_PROGRESS', reasons.stackStarted('UPDATE'), this.settings.now);
    const order = this.prepare(stack);
    for (const name of order) this.updateResource(stack, name);
    const wanted = new Set(order);
    for (const res of stack.resources.filter((r) => !wanted.has(r.name))) this.deleteResource(stack, res);
    stack.outputs = this.computeOutputs(stack);
  }

  /** Marks a stack and everything below it DELETE_IN_PROGRESS. */
  deleteStack(stack: StackRecord): void {
    setStackStatus(stack, 'DELETE', 'IN_PROGRESS', reasons.stackStarted('DELETE'), this.settings.now);
    for (const res of stack.resources) this.deleteResource(stack, res);
  }

  /** Validates a stack's template and inputs; returns the create order. */
  private prepare(stack: StackRecord): string[] {
    const label = labelOf(this.state, stack);
    validateReferences(stack.template, label);
    for (const name of Object.keys(resourcesOf(stack.template))) this.implementationOf(stack, name);
    const supplied = stack.parentId ? stack.userParams : { ...stack.environment.parameters, ...stack.userParams };
    const { values, types } = resolveParameters(stack.template, {
      supplied,
      parameterDefaults: this.settings.environment.parameter_defaults,
      nested: Boolean(stack.parentId),
      // Inputs of a nested stack are its parent resource's properties.
      label: stack.parentId ? `${prefixOf(this.state, stack).slice(0, -1)}.properties` : label,
    });
    stack.params = values;
    stack.paramTypes = types;
    return creationOrder(stack.template, label);
  }

  private implementationOf(stack: StackRecord, name: string): string {
    const type = resourceDefinition(stack.template, name).type;
    const impl = resolveType(type, stack.files, this.settings.environment.resource_registry, isBuiltinType);
    return impl.kind === 'template' ? FILE_IMPL_PREFIX + impl.file : impl.type;
  }

  private createResource(stack: StackRecord, name: string): ResourceRecord {
    const { impl, behaviour, props } = this.evaluateDefinition(stack, name);
    const now = this.settings.now;
    const res: ResourceRecord = {
      name,
      type: resourceDefinition(stack.template, name).type,
      impl,
      physicalId: newUuid(),
      action: 'CREATE',
      status: 'IN_PROGRESS',
      reason: '',
      props,
      dependsOn: referencedResources(stack.template, name),
      data: { physicalName: `${stack.name}-${name}-${shortId()}` },
      createdAt: now,
      updatedAt: now,
    };
    const slot = stack.resources.findIndex((r) => r.name === name);
    if (slot >= 0) stack.resources[slot] = res;
    else stack.resources.push(res);
    this.materialise(res, () => behaviour.create(this.context(stack), res));
    setResourceStatus(stack, res, 'CREATE', 'IN_PROGRESS', reasons.resourceStarted, now);
    return res;
  }

  private updateResource(stack: StackRecord, name: string): void {
    const old = findResource(stack, name);
    if (!old) {
      this.createResource(stack, name);
      return;
    }
    const { impl, behaviour, props } = this.evaluateDefinition(stack, name);
    if (needsReplacement(old, impl, behaviour, props)) {
      this.discard(stack, old);
      this.createResource(stack, name);
      return;
    }
    const oldProps = old.props;
    const changed = JSON.stringify(oldProps) !== JSON.stringify(props);
    Object.assign(old, { props, impl, type: resourceDefinition(stack.template, name).type });
    old.dependsOn = referencedResources(stack.template, name);
    // Heat always updates nested stacks and lets their resources decide; plain
    // resources are touched only when their properties changed or they failed before.
    if (!behaviour.nested && !changed && old.status !== 'FAILED') return;
    old.pendingFailure = undefined;
    this.materialise(old, () => behaviour.update?.(this.context(stack), old, oldProps));
    setResourceStatus(stack, old, 'UPDATE', 'IN_PROGRESS', reasons.resourceStarted, this.settings.now);
  }

  /** Removes a resource in this operation; what it holds is freed when the operation completes. */
  private deleteResource(stack: StackRecord, res: ResourceRecord): void {
    setResourceStatus(stack, res, 'DELETE', 'IN_PROGRESS', reasons.resourceStarted, this.settings.now);
    const nested = res.nestedStackId ? this.state.stacks[res.nestedStackId] : undefined;
    if (nested && !(nested.action === 'DELETE' && nested.status === 'COMPLETE')) this.deleteStack(nested);
  }

  /** Gets rid of a resource that is being replaced: its nested stack is deleted, its addresses freed now. */
  private discard(stack: StackRecord, old: ResourceRecord): void {
    const nested = old.nestedStackId ? this.state.stacks[old.nestedStackId] : undefined;
    if (nested) this.deleteStack(nested);
    else behaviourOf(old).release?.(this.state, old);
  }

  private evaluateDefinition(stack: StackRecord, name: string) {
    const impl = this.implementationOf(stack, name);
    const behaviour = behaviourOf({ impl });
    const label = `${prefixOf(this.state, stack)}resources.${name}.properties`;
    const props = evaluate(resourceDefinition(stack.template, name).properties, this.scope(stack, label)) as Record<string, unknown>;
    for (const required of behaviour.required ?? []) {
      const alternatives = required === 'network' ? ['network', 'network_id'] : [required];
      if (alternatives.every((p) => props[p] === undefined || props[p] === null)) {
        throw new TemplateError(`Property error: ${label}: Property ${required} not assigned`, 'StackValidationFailed');
      }
    }
    return { impl, behaviour, props };
  }

  /** Neutron-style runtime failures do not reject the request: the resource fails when the operation ends. */
  private materialise(res: ResourceRecord, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (!(err instanceof AllocationError)) throw err;
      res.pendingFailure = `resources.${res.name}: ${err.message}`;
    }
  }

  private context(stack: StackRecord): ResourceContext {
    return {
      state: this.state,
      stack,
      now: this.settings.now,
      sshCidr: this.settings.sshCidr,
      nested: {
        create: (res, template, params) => {
          const child = this.createStack({
            name: `${stack.name}-${res.name}-${shortId()}`,
            projectId: stack.projectId,
            template,
            files: stack.files,
            userParams: params,
            disableRollback: stack.disableRollback,
            parent: { stack, resourceName: res.name },
          });
          res.nestedStackId = child.id;
          return child.id;
        },
        update: (res, template, params) => {
          const child = res.nestedStackId ? this.state.stacks[res.nestedStackId] : undefined;
          this.updateStack(child!, { template, files: stack.files, userParams: params });
        },
      },
    };
  }

  private scope(stack: StackRecord, label: string): EvaluationScope {
    const view: AttributeView = { state: this.state, stack };
    const lookup = (name: string) => {
      const res = findResource(stack, name);
      if (!res) throw new TemplateError(`The specified reference "${name}" (in ${label}) is incorrect.`, 'InvalidTemplateReference');
      return res;
    };
    return {
      label,
      params: stack.params,
      stackName: stack.name,
      stackId: stack.id,
      projectId: stack.projectId,
      files: stack.files,
      resourceRef: (name) => lookup(name).physicalId,
      resourceAttribute: (name, attr) => attributeOf(view, lookup(name), attr, label),
    };
  }

  private computeOutputs(stack: StackRecord): StackOutput[] {
    return Object.entries(outputsOf(stack.template)).map(([key, def]) => {
      try {
        const value = evaluate(def.value, this.scope(stack, `${prefixOf(this.state, stack)}outputs.${key}`));
        return { key, value, description: def.description };
      } catch (err) {
        // Heat reports a broken output as output_error and keeps the stack.
        if (err instanceof TemplateError) return { key, value: null, description: def.description, error: err.message };
        throw err;
      }
    });
  }
}

function needsReplacement(old: ResourceRecord, impl: string, behaviour: ResourceBehaviour, props: Record<string, unknown>): boolean {
  if (old.action === 'CHECK' && old.status === 'FAILED') return true; // marked unhealthy
  if (old.action === 'DELETE') return true; // left over from a failed removal
  const bothTemplates = old.impl.startsWith(FILE_IMPL_PREFIX) && impl.startsWith(FILE_IMPL_PREFIX);
  if (old.impl !== impl && !bothTemplates) return true;
  if (behaviour.nested) return false; // nested stacks repair their own failed members
  if (old.action === 'CREATE' && old.status === 'FAILED') return true;
  const differs = (key: string) => JSON.stringify(old.props[key]) !== JSON.stringify(props[key]);
  if (behaviour.replaceOn === '*') return Object.keys({ ...old.props, ...props }).some(differs);
  return (behaviour.replaceOn ?? []).some(differs);
}

/** get_attr on a resource: its attributes, or "resource.<member>[.<attr>]" of a nested stack. */
export function attributeOf(view: AttributeView, res: ResourceRecord, attr: string | undefined, label: string): unknown {
  const attrs = behaviourOf(res).attributes(view, res);
  if (attr === undefined) return attrs;
  if (Object.prototype.hasOwnProperty.call(attrs, attr)) return attrs[attr];
  const nested = res.nestedStackId ? view.state.stacks[res.nestedStackId] : undefined;
  const member = /^resource\.([^.]+)(?:\.(.+))?$/.exec(attr);
  if (nested && member) {
    const inner = findResource(nested, member[1]);
    if (inner) return member[2] === undefined ? inner.physicalId : attributeOf({ state: view.state, stack: nested }, inner, member[2], label);
  }
  throw new TemplateError(`The Referenced Attribute (${res.name} ${attr}) is incorrect (in ${label}).`, 'InvalidTemplateAttribute');
}

/** "resources.VDU1.resources.abc123" for nested stacks, "" for a top-level stack. */
function prefixOf(state: SimState, stack: StackRecord): string {
  const names: string[] = [];
  for (let s: StackRecord | undefined = stack; s?.parentId; s = state.stacks[s.parentId]) {
    names.unshift(`resources.${s.parentResource}`);
  }
  return names.length ? `${names.join('.')}.` : '';
}

function labelOf(state: SimState, stack: StackRecord): string {
  const prefix = prefixOf(state, stack);
  return prefix ? `template of ${prefix.slice(0, -1)}` : 'template';
}
