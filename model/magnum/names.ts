/** How Magnum names things: generated names, and what it takes for a uuid. */
import crypto from 'node:crypto';

/** A uuid as Magnum's uuidutils.is_uuid_like takes one (dashes optional, any case); anything else is a name. */
export const isUuidLike = (s: string) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s);

const GREEK = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu', 'nu', 'xi', 'omicron', 'pi', 'rho', 'sigma', 'tau', 'upsilon', 'phi', 'chi', 'psi', 'omega'];

/** Magnum's generated names for what the caller left unnamed (magnum/common/name_generator.py): "<greek>-<n>-<kind>". */
export function generatedName(kind: 'template' | 'cluster'): string {
  return `${GREEK[crypto.randomInt(GREEK.length)]}-${crypto.randomInt(1, 25)}-${kind}`;
}
