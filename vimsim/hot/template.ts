/**
 * Parsing and structural validation of HOT templates, and mapping a resource
 * `type` to what implements it (a built-in type or a template file).
 */
import YAML from 'yaml';
import type { HotTemplate } from '../state/model';
import { TemplateError } from './errors';

const TOP_LEVEL_KEYS = new Set([
  'heat_template_version', 'description', 'parameter_groups', 'parameters', 'resources', 'outputs', 'conditions',
]);
const RESOURCE_KEYS = new Set([
  'type', 'properties', 'metadata', 'depends_on', 'deletion_policy', 'update_policy', 'condition', 'external_id', 'description',
]);

export interface ResourceDefinition {
  type: string;
  properties: Record<string, unknown>;
  depends_on: string[];
}

export interface OutputDefinition {
  value: unknown;
  description: string;
}

/**
 * Parsed template files by their text. Every update of a parent re-plans its
 * nested stacks from the same few files; parsing them again each time was most
 * of the simulator's CPU with 1,000 nested stacks. Entries are frozen: shared.
 */
const parsedFiles = new Map<string, HotTemplate>();
const PARSED_FILES_KEPT = 64;

/** parseTemplate for the text of a file of `files` (nested templates), cached. */
export function parseTemplateFile(text: string, label: string): HotTemplate {
  let doc = parsedFiles.get(text);
  if (!doc) {
    doc = deepFreeze(parseTemplate(text, label));
    if (parsedFiles.size >= PARSED_FILES_KEPT) parsedFiles.delete(parsedFiles.keys().next().value as string);
    parsedFiles.set(text, doc);
  }
  return doc;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Accepts a template as an object or as YAML/JSON text (YAML is a superset of JSON). */
export function parseTemplate(input: unknown, label = 'template'): HotTemplate {
  let doc: unknown = input;
  if (typeof input === 'string') {
    try {
      // YAML 1.2 core schema keeps "2013-05-23" a string, as Heat's loader does.
      doc = YAML.parse(input);
    } catch (err) {
      throw new TemplateError(`Error parsing ${label}: ${(err as Error).message}`, 'HTTPBadRequest');
    }
  }
  if (!isPlainObject(doc)) throw new TemplateError(`The ${label} is not a JSON object or YAML mapping.`, 'HTTPBadRequest');
  validateStructure(doc, label);
  return doc;
}

function validateStructure(tpl: Record<string, unknown>, label: string): void {
  if (!('heat_template_version' in tpl)) {
    throw new TemplateError(`Template format version not found (in ${label}).`, 'InvalidTemplateVersion');
  }
  for (const key of Object.keys(tpl)) {
    if (!TOP_LEVEL_KEYS.has(key)) throw new TemplateError(`Unknown Section "${key}" (in ${label})`, 'InvalidTemplateSection');
  }
  for (const section of ['parameters', 'resources', 'outputs'] as const) {
    const value = tpl[section];
    if (value !== undefined && value !== null && !isPlainObject(value)) {
      throw new TemplateError(`The section "${section}" of ${label} must be a mapping.`);
    }
  }
  for (const [name, def] of Object.entries(resourcesOf(tpl))) {
    if (!isPlainObject(def)) throw new TemplateError(`Resource ${name} definition must be a mapping (in ${label}).`);
    for (const key of Object.keys(def)) {
      if (!RESOURCE_KEYS.has(key)) {
        throw new TemplateError(`"${key}" is not a valid keyword inside a resource definition (resource ${name} in ${label})`);
      }
    }
    if (typeof def.type !== 'string' || def.type === '') {
      throw new TemplateError(`Resource ${name} is missing "type" (in ${label})`);
    }
    if (def.properties !== undefined && def.properties !== null && !isPlainObject(def.properties)) {
      throw new TemplateError(`Properties of resource ${name} must be a mapping (in ${label})`);
    }
  }
}

export function resourcesOf(tpl: HotTemplate): Record<string, Record<string, unknown>> {
  return (tpl.resources ?? {}) as Record<string, Record<string, unknown>>;
}

export function resourceDefinition(tpl: HotTemplate, name: string): ResourceDefinition {
  const raw = resourcesOf(tpl)[name];
  const dependsOn = raw.depends_on;
  return {
    type: raw.type as string,
    properties: (raw.properties ?? {}) as Record<string, unknown>,
    depends_on: dependsOn === undefined || dependsOn === null ? [] : Array.isArray(dependsOn) ? dependsOn.map(String) : [String(dependsOn)],
  };
}

export function outputsOf(tpl: HotTemplate): Record<string, OutputDefinition> {
  const out: Record<string, OutputDefinition> = {};
  for (const [key, raw] of Object.entries((tpl.outputs ?? {}) as Record<string, unknown>)) {
    const def = isPlainObject(raw) ? raw : { value: raw };
    out[key] = { value: def.value, description: typeof def.description === 'string' ? def.description : 'No description given' };
  }
  return out;
}

export function descriptionOf(tpl: HotTemplate): string {
  return typeof tpl.description === 'string' ? tpl.description : 'No description';
}

/** How a resource type is implemented. */
export type TypeImplementation =
  | { kind: 'builtin'; type: string }
  | { kind: 'template'; file: string };

/**
 * Resolves a resource `type`: the environment's resource_registry first (it can
 * alias a type to a file), then a key of `files` (e.g. "VDU1.yaml" or
 * "nested/VDU1.yaml"), else a built-in OS:: type.
 */
export function resolveType(
  type: string,
  files: Record<string, string>,
  registry: Record<string, unknown>,
  isBuiltin: (type: string) => boolean,
): TypeImplementation {
  const mapped = registry[type];
  const target = typeof mapped === 'string' ? mapped : type;
  if (Object.prototype.hasOwnProperty.call(files, target)) {
    return { kind: 'template', file: target };
  }
  if (isBuiltin(target)) return { kind: 'builtin', type: target };
  if (/\.(ya?ml|json|template)$/i.test(target) || target.includes('/')) {
    throw new TemplateError(
      `Could not fetch remote template "${target}": it is not in the "files" of the request ` +
        `(known files: ${Object.keys(files).join(', ') || 'none'})`,
      'NotFound',
    );
  }
  throw new TemplateError(`The Resource Type (${target}) could not be found.`, 'EntityNotFound');
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
