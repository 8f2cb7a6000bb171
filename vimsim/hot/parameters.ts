/**
 * Template parameters: defaults, required checks, type coercion and the
 * constraints Heat enforces before it accepts a stack.
 */
import type { HotTemplate } from '../state/model';
import { TemplateError } from './errors';
import { isPlainObject } from './template';

const PARAM_TYPES = new Set(['string', 'number', 'json', 'comma_delimited_list', 'boolean']);

export interface ResolvedParameters {
  values: Record<string, unknown>;
  types: Record<string, string>;
}

export interface ParameterSource {
  /** Values supplied by the client (top level) or the parent's properties (nested). */
  supplied: Record<string, unknown>;
  /** environment.parameter_defaults: override template defaults at every nesting level. */
  parameterDefaults: Record<string, unknown>;
  /** Nested stacks report unknown inputs as properties, like Heat's template resources. */
  nested: boolean;
  label: string;
}

export function resolveParameters(tpl: HotTemplate, source: ParameterSource): ResolvedParameters {
  const defs = (tpl.parameters ?? {}) as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  const types: Record<string, string> = {};

  for (const key of Object.keys(source.supplied)) {
    if (!(key in defs)) {
      throw source.nested
        ? new TemplateError(`${source.label}: Unknown Property ${key}`, 'StackValidationFailed')
        : new TemplateError(`The Parameter (${key}) was not defined in template.`, 'UnknownUserParameter');
    }
  }

  for (const [name, rawDef] of Object.entries(defs)) {
    const def = isPlainObject(rawDef) ? rawDef : {};
    const type = typeof def.type === 'string' ? def.type : '';
    if (!PARAM_TYPES.has(type)) {
      throw new TemplateError(`${source.label}: Invalid type (${String(def.type)}) of parameter ${name}`, 'InvalidSchemaError');
    }
    types[name] = type;

    let value = source.supplied[name];
    if (value === undefined) value = source.parameterDefaults[name];
    if (value === undefined) value = def.default;
    if (value === undefined) {
      throw new TemplateError(
        source.nested ? `${source.label}: Property ${name} not assigned` : `The Parameter (${name}) was not provided.`,
        'UserParameterMissing',
      );
    }
    // A null from a parent property means "empty", as Heat's property schema does.
    values[name] = coerce(value === null ? emptyValueOf(type) : value, type, name, source.label);
    checkConstraints(values[name], def.constraints, name, source.label);
  }
  return { values, types };
}

function emptyValueOf(type: string): unknown {
  switch (type) {
    case 'json': return {};
    case 'comma_delimited_list': return [];
    case 'boolean': return false;
    case 'number': return 0;
    default: return '';
  }
}

function coerce(value: unknown, type: string, name: string, label: string): unknown {
  const bad = (why: string) => new TemplateError(`${label}: Parameter '${name}' is invalid: ${why}`, 'StackValidationFailed');
  switch (type) {
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      throw bad(`Value must be a string; got ${JSON.stringify(value)}`);
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (Number.isNaN(n)) throw bad(`Value '${String(value)}' is not a number`);
      return n;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'string' && /^(true|false|yes|no|on|off|1|0|t|f|y|n)$/i.test(value)) {
        return /^(true|yes|on|1|t|y)$/i.test(value);
      }
      throw bad(`Unrecognized value "${String(value)}", acceptable values are: true, false`);
    case 'json':
      if (typeof value === 'string') {
        try {
          return JSON.parse(value);
        } catch {
          throw bad('Value must be valid JSON');
        }
      }
      if (typeof value === 'object') return value;
      throw bad('Value must be valid JSON');
    case 'comma_delimited_list':
      if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      if (typeof value === 'string') return value === '' ? [] : value.split(',').map((s) => s.trim());
      throw bad('Value must be a comma-delimited list string');
    default:
      return value;
  }
}

function checkConstraints(value: unknown, constraints: unknown, name: string, label: string): void {
  if (!Array.isArray(constraints)) return;
  for (const c of constraints) {
    if (!isPlainObject(c)) continue;
    const fail = (why: string) => {
      const msg = typeof c.description === 'string' ? c.description : why;
      return new TemplateError(`${label}: Parameter '${name}' is invalid: ${msg}`, 'StackValidationFailed');
    };
    if (Array.isArray(c.allowed_values) && !c.allowed_values.some((v) => String(v) === String(value))) {
      throw fail(`"${String(value)}" is not an allowed value [${c.allowed_values.join(', ')}]`);
    }
    if (isPlainObject(c.range) && typeof value === 'number') {
      const { min, max } = c.range as { min?: number; max?: number };
      if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
        throw fail(`${value} is out of range (min: ${min ?? 'None'}, max: ${max ?? 'None'})`);
      }
    }
    if (isPlainObject(c.length) && (typeof value === 'string' || Array.isArray(value))) {
      const { min, max } = c.length as { min?: number; max?: number };
      if ((min !== undefined && value.length < min) || (max !== undefined && value.length > max)) {
        throw fail(`length (${value.length}) is out of range (min: ${min ?? 'None'}, max: ${max ?? 'None'})`);
      }
    }
    if (typeof c.allowed_pattern === 'string' && typeof value === 'string') {
      if (!new RegExp(`^(?:${c.allowed_pattern})$`).test(value)) {
        throw fail(`"${value}" does not match pattern "${c.allowed_pattern}"`);
      }
    }
  }
}

/** Heat reports every parameter value as a string in the stack's `parameters`. */
export function displayParameter(value: unknown, type: string): string {
  switch (type) {
    case 'json': return JSON.stringify(value);
    case 'comma_delimited_list': return (value as unknown[]).join(',');
    case 'boolean': return value ? 'True' : 'False';
    default: return String(value);
  }
}
