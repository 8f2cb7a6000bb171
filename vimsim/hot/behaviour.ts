/**
 * The contract every resource type implements: how it materialises, what
 * forces a replacement on update, what it frees when deleted, and what
 * attributes it exposes to get_attr and to the resource show API.
 */
import type { HotTemplate, ResourceRecord, SimState, StackRecord } from '../state/model';

/** Read-only view used to compute attributes (planning and API alike). */
export interface AttributeView {
  state: SimState;
  stack: StackRecord;
}

/** Nested stack operations, provided by the planner (types must not import it: it imports them). */
export interface NestedStackOps {
  /** Creates and plans a nested stack owned by res; returns its id. */
  create(res: ResourceRecord, template: HotTemplate, params: Record<string, unknown>): string;
  /** Updates res's nested stack in place to a new template and parameters. */
  update(res: ResourceRecord, template: HotTemplate, params: Record<string, unknown>): void;
}

export interface ResourceContext extends AttributeView {
  now: string;
  sshCidr: string;
  nested: NestedStackOps;
}

export interface ResourceBehaviour {
  /** The resource owns a nested stack (template resources, groups). */
  nested?: boolean;
  /** Properties that must be set (Heat: "Property X not assigned"). */
  required?: readonly string[];
  /** Properties whose change needs a new physical resource; '*' = any change. */
  replaceOn?: readonly string[] | '*';
  /** Materialises the resource: res.physicalId is preset, fill res.data / nested stack. */
  create(ctx: ResourceContext, res: ResourceRecord): void;
  /** Applies new properties in place (res.props already holds them). */
  update?(ctx: ResourceContext, res: ResourceRecord, oldProps: Record<string, unknown>): void;
  /** Frees what the resource holds (addresses, networks) once it is gone. */
  release?(state: SimState, res: ResourceRecord): void;
  attributes(view: AttributeView, res: ResourceRecord): Record<string, unknown>;
}

export function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? fallback : String(value);
}

/** The `name` property, or Heat's generated physical name when it is unset or empty. */
export function nameOf(res: { props: Record<string, unknown>; data: Record<string, unknown> }): string {
  return str(res.props.name) || str(res.data.physicalName);
}
