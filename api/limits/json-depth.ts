/**
 * What parsed JSON may not hold, found in one walk with an explicit stack
 * (recursion would overflow on the 200,000-deep bodies a hostile caller
 * sends, and every later step, validation and redaction, recurses):
 * nesting deeper than the limit, and NUL characters in a string or a key,
 * which PostgreSQL cannot store in text or jsonb (its error would be a 500).
 */

export interface JsonProblem { at: string; reason: 'depth' | 'nul' }

interface Frame { value: unknown; depth: number; parent?: Frame; key?: string | number }

/** The first problem of `value` with its path (`$.a[0].b`), or undefined. */
export function jsonProblem(value: unknown, maxDepth: number): JsonProblem | undefined {
  const stack: Frame[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (typeof f.value === 'string') {
      if (f.value.includes('\0')) return { at: pathOf(f), reason: 'nul' };
      continue;
    }
    if (f.value === null || typeof f.value !== 'object') continue;
    const depth = f.depth + 1;
    if (depth > maxDepth) return { at: pathOf(f), reason: 'depth' };
    const entries: [string | number, unknown][] = Array.isArray(f.value) ? f.value.map((v, i) => [i, v]) : Object.entries(f.value);
    for (const [key, v] of entries) {
      if (typeof key === 'string' && key.includes('\0')) return { at: pathOf({ value: v, depth, parent: f, key }), reason: 'nul' };
      if (v !== null && (typeof v === 'object' || typeof v === 'string')) stack.push({ value: v, depth, parent: f, key });
    }
  }
  return undefined;
}

/** The path where `value` first nests deeper than `maxDepth`, or undefined. */
export function tooDeepAt(value: unknown, maxDepth: number): string | undefined {
  const p = jsonProblem(value, maxDepth);
  return p?.reason === 'depth' ? p.at : undefined;
}

function pathOf(f: Frame): string {
  const keys: (string | number)[] = [];
  for (let at: Frame | undefined = f; at?.parent; at = at.parent) keys.push(at.key!);
  keys.reverse();
  const shown = keys.length > 12 ? [...keys.slice(0, 6), '…', ...keys.slice(-5)] : keys;
  return '$' + shown.map((k) => (typeof k === 'number' ? `[${k}]` : k === '…' ? '…' : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k.replace(/\0/g, '\\0'))}]`)).join('');
}
