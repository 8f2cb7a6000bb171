/**
 * Depth of parsed JSON, walked with an explicit stack: recursion would
 * overflow on the 200,000-deep bodies a hostile caller sends, and every
 * later step (validation, redaction) recurses.
 */

/** The path (`$.a[0].b`) where `value` first nests deeper than `maxDepth`, or undefined. */
export function tooDeepAt(value: unknown, maxDepth: number): string | undefined {
  interface Frame { value: unknown; depth: number; parent?: Frame; key?: string | number }
  const stack: Frame[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (f.value === null || typeof f.value !== 'object') continue;
    const depth = f.depth + 1;
    if (depth > maxDepth) return pathOf(f);
    const entries: [string | number, unknown][] = Array.isArray(f.value) ? f.value.map((v, i) => [i, v]) : Object.entries(f.value);
    for (const [key, v] of entries) {
      if (v !== null && typeof v === 'object') stack.push({ value: v, depth, parent: f, key });
    }
  }
  return undefined;

  function pathOf(f: Frame): string {
    const keys: (string | number)[] = [];
    for (let at: Frame | undefined = f; at?.parent; at = at.parent) keys.push(at.key!);
    keys.reverse();
    const shown = keys.length > 12 ? [...keys.slice(0, 6), '…', ...keys.slice(-5)] : keys;
    return '$' + shown.map((k) => (typeof k === 'number' ? `[${k}]` : k === '…' ? '…' : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`)).join('');
  }
}
