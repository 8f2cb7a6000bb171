/**
 * HOT intrinsic functions. A function is a mapping with exactly one key that
 * names it ({get_param: ...}); anything else is data and is walked recursively.
 * Functions the simulator does not know are kept as they are (with their
 * arguments resolved) instead of failing the stack.
 */
import { TemplateError } from './errors';
import { isPlainObject } from './template';

export interface EvaluationScope {
  /** Where the value sits, for error messages: "resources.VDU1.properties". */
  label: string;
  params: Record<string, unknown>;
  stackName: string;
  stackId: string;
  projectId: string;
  files: Record<string, string>;
  /** get_resource: the physical id of a resource of the same stack. */
  resourceRef(name: string): string;
  /** get_attr: an attribute of a resource of the same stack (attr undefined = all attributes). */
  resourceAttribute(name: string, attr: string | undefined): unknown;
}

export const KNOWN_FUNCTIONS = [
  'get_param', 'get_resource', 'get_attr', 'str_replace', 'str_replace_strict', 'str_replace_vstrict',
  'list_join', 'get_file', 'repeat', 'map_merge', 'str_split', 'list_concat', 'list_concat_unique',
] as const;
const KNOWN = new Set<string>(KNOWN_FUNCTIONS);

/** Returns [name, args] when value is a function call of any name, known or not. */
export function asFunctionCall(value: unknown): [string, unknown] | undefined {
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const [name] = keys;
  if (KNOWN.has(name) || /^(Fn::|Ref$)|^(if|equals|not|and|or|contains|yaql|digest|filter|make_url|map_replace)$/.test(name)) {
    return [name, value[name]];
  }
  return undefined;
}

/** Visits every function call inside a value (outer calls before their arguments). */
export function forEachFunctionCall(value: unknown, visit: (name: string, args: unknown) => void): void {
  const call = asFunctionCall(value);
  if (call) {
    visit(call[0], call[1]);
    forEachFunctionCall(call[1], visit);
  } else if (Array.isArray(value)) {
    value.forEach((v) => forEachFunctionCall(v, visit));
  } else if (isPlainObject(value)) {
    Object.values(value).forEach((v) => forEachFunctionCall(v, visit));
  }
}

export function evaluate(value: unknown, scope: EvaluationScope): unknown {
  const call = asFunctionCall(value);
  if (call) return evaluateCall(call[0], call[1], scope);
  if (Array.isArray(value)) return value.map((v) => evaluate(v, scope));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = evaluate(v, scope);
    return out;
  }
  return value;
}

function evaluateCall(name: string, rawArgs: unknown, scope: EvaluationScope): unknown {
  const fail = (msg: string) => new TemplateError(`${scope.label}: ${name}: ${msg}`, 'StackValidationFailed');
  switch (name) {
    case 'get_param': return getParam(evaluate(rawArgs, scope), scope, fail);
    case 'get_resource': {
      const target = evaluate(rawArgs, scope);
      if (typeof target !== 'string') throw fail('argument must be a resource name');
      return scope.resourceRef(target);
    }
    case 'get_attr': return getAttr(evaluate(rawArgs, scope), scope, fail);
    case 'str_replace':
    case 'str_replace_strict':
    case 'str_replace_vstrict': return strReplace(name, evaluate(rawArgs, scope), fail);
    case 'list_join': return listJoin(evaluate(rawArgs, scope), fail);
    case 'get_file': {
      const file = evaluate(rawArgs, scope);
      if (typeof file !== 'string' || !(file in scope.files)) {
        throw fail(`No content found in the "files" section for get_file path: ${String(file)}`);
      }
      return scope.files[file];
    }
    case 'repeat': return repeat(rawArgs, scope, fail);
    case 'map_merge': {
      const maps = evaluate(rawArgs, scope);
      if (!Array.isArray(maps)) throw fail('argument must be a list of maps');
      return Object.assign({}, ...maps.filter(isPlainObject));
    }
    case 'str_split': {
      const args = evaluate(rawArgs, scope);
      if (!Array.isArray(args) || typeof args[0] !== 'string' || typeof args[1] !== 'string') {
        throw fail('arguments must be [delimiter, string, index?]');
      }
      const parts = args[1].split(args[0]);
      return args.length > 2 ? parts[Number(args[2])] : parts;
    }
    case 'list_concat':
    case 'list_concat_unique': {
      const lists = evaluate(rawArgs, scope);
      if (!Array.isArray(lists) || !lists.every(Array.isArray)) throw fail('arguments must be lists');
      const flat = (lists as unknown[][]).flat();
      if (name === 'list_concat') return flat;
      return flat.filter((v, i) => flat.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i);
    }
    default:
      // Unknown to the simulator: keep the call, with its arguments resolved.
      return { [name]: evaluate(rawArgs, scope) };
  }
}

function getParam(args: unknown, scope: EvaluationScope, fail: (m: string) => Error): unknown {
  const [name, ...path] = Array.isArray(args) ? args : [args];
  if (typeof name !== 'string') throw fail('the parameter name must be a string');
  let value: unknown;
  if (name === 'OS::stack_name') value = scope.stackName;
  else if (name === 'OS::stack_id') value = scope.stackId;
  else if (name === 'OS::project_id') value = scope.projectId;
  else if (name in scope.params) value = scope.params[name];
  else throw new TemplateError(`${scope.label}: The Parameter (${name}) was not provided.`, 'UserParameterMissing');

  const where = () => `[${[name, ...path].map(String).join(', ')}]`;
  for (const [i, key] of path.entries()) {
    const parent = [name, ...path.slice(0, i)].map(String).join(', ');
    if (Array.isArray(value)) {
      const index = typeof key === 'number' ? key : /^\d+$/.test(String(key)) ? Number(key) : NaN;
      if (Number.isNaN(index) || index >= value.length) {
        throw fail(`path ${where()} not found: [${parent}] is a list of ${value.length} item(s), no index ${String(key)}`);
      }
      value = value[index];
    } else if (isPlainObject(value)) {
      if (!Object.prototype.hasOwnProperty.call(value, String(key))) {
        const known = Object.keys(value).join(', ') || 'none';
        throw fail(`path ${where()} not found: [${parent}] has no key "${String(key)}" (keys: ${known})`);
      }
      value = value[String(key)];
    } else {
      throw fail(`path ${where()} not found: [${parent}] is ${JSON.stringify(value)}, which can't be traversed`);
    }
  }
  return value;
}

function getAttr(args: unknown, scope: EvaluationScope, fail: (m: string) => Error): unknown {
  if (!Array.isArray(args) || typeof args[0] !== 'string') throw fail('arguments must be [resource_name, attribute, path...]');
  const [resource, attr, ...path] = args as [string, unknown, ...unknown[]];
  if (attr !== undefined && typeof attr !== 'string') throw fail('the attribute name must be a string');
  let value = scope.resourceAttribute(resource, attr);
  // Heat returns null (not an error) when a path into an attribute does not exist.
  for (const key of path) {
    if (Array.isArray(value)) value = value[Number(key)];
    else if (isPlainObject(value)) value = value[String(key)];
    else value = undefined;
    if (value === undefined) return null;
  }
  return value ?? null;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function strReplace(name: string, args: unknown, fail: (m: string) => Error): unknown {
  if (!isPlainObject(args) || typeof args.template !== 'string' || !isPlainObject(args.params)) {
    throw fail('arguments must be {template: string, params: {...}}');
  }
  let out = args.template;
  // Longest keys first, so "$var_long" is not clobbered by "$var".
  const keys = Object.keys(args.params).sort((a, b) => b.length - a.length);
  for (const key of keys) {
    if (name !== 'str_replace' && !out.includes(key)) throw fail(`"${key}" parameter must be in template`);
    const v = args.params[key];
    if (name === 'str_replace_vstrict' && (v === '' || v === null)) throw fail(`"${key}" parameter must have a value`);
    out = out.split(key).join(stringify(v));
  }
  return out;
}

function listJoin(args: unknown, fail: (m: string) => Error): string {
  if (!Array.isArray(args) || typeof args[0] !== 'string') throw fail('arguments must be [delimiter, list, ...]');
  const [delimiter, ...lists] = args as [string, ...unknown[]];
  const items: unknown[] = [];
  for (const list of lists) {
    let l = list;
    if (typeof l === 'string') {
      try {
        l = JSON.parse(l);
      } catch {
        throw fail('the items to join must be lists');
      }
    }
    if (!Array.isArray(l)) throw fail('the items to join must be lists');
    items.push(...l);
  }
  return items.map(stringify).join(delimiter);
}

function repeat(rawArgs: unknown, scope: EvaluationScope, fail: (m: string) => Error): unknown[] {
  if (!isPlainObject(rawArgs) || !isPlainObject(rawArgs.for_each) || !('template' in rawArgs)) {
    throw fail('arguments must be {for_each: {...}, template: ...}');
  }
  const forEach = evaluate(rawArgs.for_each, scope) as Record<string, unknown>;
  const vars = Object.entries(forEach).map(([k, v]) => {
    if (!Array.isArray(v)) throw fail(`the values of for_each (${k}) must be lists`);
    return [k, v] as [string, unknown[]];
  });
  const permutations = rawArgs.permutations !== false;
  let combos: Record<string, unknown>[] = [{}];
  if (permutations) {
    for (const [k, list] of vars) combos = combos.flatMap((c) => list.map((item) => ({ ...c, [k]: item })));
  } else {
    const len = vars[0]?.[1].length ?? 0;
    combos = Array.from({ length: len }, (_, i) => Object.fromEntries(vars.map(([k, list]) => [k, list[i]])));
  }
  const substitute = (tpl: unknown, combo: Record<string, unknown>): unknown => {
    if (typeof tpl === 'string') {
      let s = tpl;
      for (const [k, v] of Object.entries(combo)) s = s.split(k).join(stringify(v));
      return s;
    }
    if (Array.isArray(tpl)) return tpl.map((t) => substitute(t, combo));
    if (isPlainObject(tpl)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(tpl)) out[substitute(k, combo) as string] = substitute(v, combo);
      return out;
    }
    return tpl;
  };
  return combos.map((combo) => evaluate(substitute(rawArgs.template, combo), scope));
}
