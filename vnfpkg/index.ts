/**
 * VNF package reading: a SOL004 CSAR zip in the content store in, its files
 * beside it in the store, the checked package and its VNFD model out. Everything a bad package can do wrong surfaces as a
 * PackageError whose message is meant for the operator.
 */
import { readCsar, type Csar, type PackageContent } from './csar';
import { PACKAGE_LIMIT_DEFAULTS, type PackageLimits } from '../common/settings/package-limits';
import { checkVduInstanceBounds, checkVnfdSize } from './vdu-bounds';
import { buildVnfd } from './vnfd';
import type { Vnfd } from '../model/vnfd';

export { readCsar, PackageError } from './csar';
export type { Csar, CsarFile, PackageContent, ToscaMeta, ToscaMetaEntry } from './csar';
export { buildVnfd } from './vnfd';
export * from '../model/vnfd';

export { PACKAGE_LIMIT_DEFAULTS, type PackageLimits } from '../common/settings/package-limits';

/** Reads (into the content store), checks and models a package within `limits` (package-limits.ts). */
export async function loadPackage(pkg: PackageContent, limits: PackageLimits = PACKAGE_LIMIT_DEFAULTS): Promise<{ csar: Csar; vnfd: Vnfd }> {
  const csar = await readCsar(pkg, limits);
  const vnfd = buildVnfd(csar);
  checkVduInstanceBounds(vnfd, limits.vduInstances);
  checkVnfdSize(vnfd, limits.vnfdBytes);
  return { csar, vnfd };
}
