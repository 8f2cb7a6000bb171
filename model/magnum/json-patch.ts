/**
 * RFC 6902 as Magnum applies it (magnum/api/utils.py apply_jsonpatch, the
 * jsonpatch library, types.JsonPatchType): add, replace and remove on a
 * resource shown as a dict. Internal attributes cannot be touched, a new
 * root attribute cannot be added, and `replace` of a dict attribute takes
 * the client's `str(dict)` (a Python literal). Every refusal is a 400
 * naming the path.
 */
import { badRequest } from '../../common/http-error';
import type { PatchOp } from './cluster';
import { literalEval, LiteralError } from './python-literal';

const INTERNAL = ['/created_at', '/id', '/links', '/updated_at', '/uuid', '/project_id', '/user_id'];

export interface PatchRules {
  /** More internal attributes of this resource. */
  internal?: readonly string[];
  /** Attributes that cannot be removed (templates: image_id, coe, ...). */
  mandatory?: readonly string[];
  /** Attributes whose `replace` takes a dict (a JSON object, or a Python literal string). */
  dicts?: readonly string[];
}

type Doc = Record<string, unknown>;

export function applyPatch(doc: Doc, ops: PatchOp[], rules: PatchRules = {}): Doc {
  const out: Doc = structuredClone(doc);
  const fail = (reason: string) => badRequest(`Couldn't apply patch '${JSON.stringify(ops)}'. Reason: ${reason}`);
  for (const p of ops) {
    const root = `/${p.path.split('/')[1]}`;
    if (INTERNAL.includes(root) || rules.internal?.includes(root.slice(1))) throw badRequest(`'${root}' is an internal attribute and can not be updated`);
    if (p.op === 'remove' && rules.mandatory?.includes(root.slice(1)) && p.path === root) throw badRequest(`'${root}' is a mandatory attribute and can not be removed`);
    if (p.op !== 'remove' && p.value === undefined) throw badRequest(`'${p.path}': the ${p.op} operation needs a value`);
    const keys = p.path.split('/').slice(1);
    if (p.op === 'add' && keys.length === 1) {
      if (!(keys[0] in out)) throw badRequest(`Adding a new attribute ${p.path} to the root of the resource is not allowed.`);
      if (out[keys[0]] !== null && out[keys[0]] !== undefined) throw badRequest(`The attribute ${p.path} has existed, please use 'replace' operation instead.`);
    }
    let value = p.value;
    if (p.op === 'replace' && keys.length === 1 && rules.dicts?.includes(keys[0]) && typeof value === 'string') {
      try {
        value = literalEval(value);
      } catch (e) {
        if (e instanceof LiteralError) throw fail(`${p.path}: ${e.message}`);
        throw e;
      }
    }
    const parent = walk(out, keys.slice(0, -1), p.path, fail);
    const last = keys[keys.length - 1];
    if (last === '__proto__' || last === 'constructor' || last === 'prototype') throw fail(`${p.path}: not a member name`);
    const has = Object.prototype.hasOwnProperty.call(parent, last);
    if (p.op === 'remove') {
      if (!has) throw fail(`can't remove a non-existent object '${last}'`);
      if (keys.length === 1) parent[last] = null;
      else delete parent[last];
    } else if (p.op === 'replace') {
      if (!has) throw fail(`can't replace a non-existent object '${last}'`);
      parent[last] = value;
    } else {
      parent[last] = value;
    }
  }
  return out;
}

function walk(doc: Doc, keys: string[], path: string, fail: (r: string) => Error): Doc {
  let cur: unknown = doc;
  for (const k of keys) {
    const next = cur && typeof cur === 'object' && !Array.isArray(cur) && Object.prototype.hasOwnProperty.call(cur, k) ? (cur as Doc)[k] : undefined;
    if (next === null || next === undefined) {
      // jsonpatch: a member of a missing (or null) object
      if (cur && typeof cur === 'object' && (cur as Doc)[k] === null) { (cur as Doc)[k] = {}; cur = (cur as Doc)[k]; continue; }
      throw fail(`${path}: member '${k}' not found`);
    }
    if (typeof next !== 'object' || Array.isArray(next)) throw fail(`${path}: '${k}' is not an object`);
    cur = next;
  }
  return cur as Doc;
}
