/** Magnum's generated names for what the caller left unnamed (magnum/common/name_generator.py): "<greek>-<n>-<kind>". */
import crypto from 'node:crypto';

const GREEK = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu', 'nu', 'xi', 'omicron', 'pi', 'rho', 'sigma', 'tau', 'upsilon', 'phi', 'chi', 'psi', 'omega'];

export function generatedName(kind: 'template' | 'cluster'): string {
  return `${GREEK[crypto.randomInt(GREEK.length)]}-${crypto.randomInt(1, 25)}-${kind}`;
}
