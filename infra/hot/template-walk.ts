/** Generic walks over HOT template fragments (plain JSON-like values). */

export type Json = unknown;

import { isObject } from '../../common/json-merge-patch';

/** Copy of `node` where every `{get_param: [...]}` path is replaced by `fn(path)`. */
export function mapGetParamPaths(node: Json, fn: (path: unknown[]) => unknown[]): Json {
  if (Array.isArray(node)) return node.map((v) => mapGetParamPaths(v, fn));
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === 'get_param' && Array.isArray(v) ? fn([...v]) : mapGetParamPaths(v, fn);
  }
  return out;
}

/** Every get_param path (list form) under `node`. */
export function collectGetParamPaths(node: Json, into: unknown[][] = []): unknown[][] {
  if (Array.isArray(node)) node.forEach((v) => collectGetParamPaths(v, into));
  else if (isObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'get_param' && Array.isArray(v)) into.push(v);
      else collectGetParamPaths(v, into);
    }
  }
  return into;
}

/** Copy of `node` with every `{get_resource: name}` replaced by `value`. */
export function replaceGetResource(node: Json, name: string, value: unknown): Json {
  if (Array.isArray(node)) return node.map((v) => replaceGetResource(v, name, value));
  if (!isObject(node)) return node;
  const keys = Object.keys(node);
  if (keys.length === 1 && keys[0] === 'get_resource' && node.get_resource === name) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = replaceGetResource(v, name, value);
  return out;
}

export { jsonMergePatch } from '../../common/json-merge-patch';
export { isObject };
