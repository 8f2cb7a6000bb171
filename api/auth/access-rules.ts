/**
 * Application credentials with access rules (Keystone's `access_rules`): a
 * token made from one may call only what a rule names, as keystonemiddleware
 * enforces it. A rule names the service type (this API is
 * `nfv-orchestration`, and `container-infra` for Magnum's /v1), the method,
 * and the path, where `*` stands for one path segment and `**` for any
 * number of them. Security review 3, Low 1.
 */
export interface AccessRule { service: string; method: string; path: string }

/** The catalog type of the service a request path belongs to. */
export const serviceTypeOf = (path: string) => (path === '/v1' || path.startsWith('/v1/') ? 'container-infra' : 'nfv-orchestration');

/** Segment-wise match, linear in pattern x path (no backtracking blow-up on many `**`). */
function pathMatches(pattern: string, path: string): boolean {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  // can[j]: the pattern's first i segments match the path's first j
  let can = got.map(() => false).concat(false);
  can[0] = true;
  for (const w of want) {
    const next = can.map(() => false);
    for (let j = 0; j <= got.length; j++) {
      if (w === '**') next[j] = can[j] || (j > 0 && next[j - 1]);
      else next[j] = j > 0 && can[j - 1] && (w === '*' || w === got[j - 1]);
    }
    can = next;
  }
  return can[got.length];
}

/** Whether `rules` let this request through (an empty list lets nothing through, as Keystone has it). */
export function accessAllowed(rules: readonly AccessRule[], method: string, path: string): boolean {
  const service = serviceTypeOf(path);
  return rules.some((r) => r.service === service && r.method.toUpperCase() === method.toUpperCase() && pathMatches(r.path, path));
}
