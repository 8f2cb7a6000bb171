/** JSON representations of stacks, resources and events, as Heat's API renders them. */
import { displayParameter } from '../hot/parameters';
import { attributeOf } from '../hot/planner';
import type { EventRecord, ResourceRecord, SimState, StackRecord } from '../state/model';

export function stackHref(baseUrl: string, stack: StackRecord): string {
  return `${baseUrl}/heat/v1/${stack.projectId}/stacks/${encodeURIComponent(stack.name)}/${stack.id}`;
}

export function stackSummary(baseUrl: string, stack: StackRecord) {
  return {
    id: stack.id,
    stack_name: stack.name,
    description: stack.description,
    stack_status: `${stack.action}_${stack.status}`,
    stack_status_reason: stack.reason,
    creation_time: stack.createdAt,
    updated_time: stack.updatedAt ?? null,
    deletion_time: stack.deletedAt ?? null,
    parent: stack.parentId ?? null,
    stack_owner: null,
    stack_user_project_id: stack.projectId,
    project: stack.projectId,
    tags: null,
    links: [{ href: stackHref(baseUrl, stack), rel: 'self' }],
  };
}

export function stackDetail(baseUrl: string, stack: StackRecord, resolveOutputs: boolean) {
  const parameters: Record<string, string> = {
    'OS::stack_id': stack.id,
    'OS::stack_name': stack.name,
    'OS::project_id': stack.projectId,
  };
  for (const [name, value] of Object.entries(stack.params)) parameters[name] = displayParameter(value, stack.paramTypes[name]);
  const detail: Record<string, unknown> = {
    ...stackSummary(baseUrl, stack),
    parameters,
    template_description: stack.description,
    disable_rollback: stack.disableRollback,
    timeout_mins: stack.timeoutMins ?? null,
    capabilities: [],
    notification_topics: [],
  };
  if (resolveOutputs) detail.outputs = stack.outputs.map(outputView);
  return detail;
}

export function outputView(o: StackRecord['outputs'][number]) {
  const view: Record<string, unknown> = { output_key: o.key, output_value: o.value, description: o.description };
  if (o.error) view.output_error = o.error;
  return view;
}

export function resourceView(baseUrl: string, state: SimState, stack: StackRecord, res: ResourceRecord) {
  const href = stackHref(baseUrl, stack);
  const links = [
    { href: `${href}/resources/${encodeURIComponent(res.name)}`, rel: 'self' },
    { href, rel: 'stack' },
  ];
  const nested = res.nestedStackId ? state.stacks[res.nestedStackId] : undefined;
  if (nested) links.push({ href: stackHref(baseUrl, nested), rel: 'nested' });
  const view: Record<string, unknown> = {
    resource_name: res.name,
    logical_resource_id: res.name,
    physical_resource_id: res.physicalId,
    resource_type: res.type,
    resource_status: `${res.action}_${res.status}`,
    resource_status_reason: res.reason,
    creation_time: res.createdAt,
    updated_time: res.updatedAt,
    required_by: stack.resources.filter((r) => r.dependsOn.includes(res.name)).map((r) => r.name),
    links,
  };
  if (stack.parentResource) view.parent_resource = stack.parentResource;
  return view;
}

export function resourceDetail(baseUrl: string, state: SimState, stack: StackRecord, res: ResourceRecord) {
  return {
    ...resourceView(baseUrl, state, stack, res),
    description: '',
    metadata: {},
    attributes: attributeOf({ state, stack }, res, undefined, `resources.${res.name}`) as Record<string, unknown>,
  };
}

export function eventView(baseUrl: string, stack: StackRecord, event: EventRecord) {
  const href = stackHref(baseUrl, stack);
  const isStack = event.resourceType === 'OS::Heat::Stack' && event.physicalId === stack.id;
  const resourceHref = `${href}/resources/${encodeURIComponent(event.resourceName)}`;
  const view: Record<string, unknown> = {
    id: event.id,
    event_time: event.time,
    resource_name: event.resourceName,
    logical_resource_id: event.resourceName,
    physical_resource_id: event.physicalId,
    resource_status: `${event.action}_${event.status}`,
    resource_status_reason: event.reason,
    links: [
      { href: `${resourceHref}/events/${event.id}`, rel: 'self' },
      { href: isStack ? href : resourceHref, rel: 'resource' },
      { href, rel: 'stack' },
    ],
  };
  if (stack.parentResource) view.parent_resource = stack.parentResource;
  return view;
}
