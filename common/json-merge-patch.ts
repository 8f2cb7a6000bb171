/** RFC 7386 JSON merge patch: how Tacker applies additionalParams.nfv, and how ModifyVnfInfo changes metadata, extensions, vnfConfigurableProperties and vimConnectionInfo. */

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `target` with `patch` merged over it: null removes a key, an object merges, anything else replaces. Idempotent. */
export function jsonMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = jsonMergePatch(out[k], v);
  }
  return out;
}
