/**
 * VNF package reading: a SOL004 CSAR zip in, the checked package and its
 * VNFD model out. Everything a bad package can do wrong surfaces as a
 * PackageError whose message is meant for the operator.
 */
import { readCsar, type Csar } from './csar';
import { buildVnfd } from './vnfd';
import type { Vnfd } from './vnfd-model';

export { readCsar, PackageError } from './csar';
export type { Csar, ToscaMeta, ToscaMetaEntry } from './csar';
export { buildVnfd } from './vnfd';
export * from './vnfd-model';

export function loadPackage(zip: Buffer): { csar: Csar; vnfd: Vnfd } {
  const csar = readCsar(zip);
  return { csar, vnfd: buildVnfd(csar) };
}
