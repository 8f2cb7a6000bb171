import { collectVnfdFiles } from './imports';
import { verifyListedFiles } from './listed-files';
import { PackageError } from './package-error';
import { toPackagePath } from './package-path';
import { PACKAGE_LIMIT_DEFAULTS, type PackageLimits } from './package-limits';
import { parseToscaMeta, TOSCA_META_PATH, type ToscaMeta } from './tosca-meta';
import { unzipPackage } from './zip-entries';

export { PackageError } from './package-error';
export type { ToscaMeta, ToscaMetaEntry } from './tosca-meta';

/** A VNF package (SOL004 CSAR with TOSCA-Metadata) read into memory and checked. */
export interface Csar {
  /** Every file, by normalized package path ("Definitions/x.yaml"). */
  files: Record<string, Buffer>;
  /** TOSCA-Metadata/TOSCA.meta, parsed. */
  meta: ToscaMeta;
  /** Package path of the top VNFD yaml. */
  entryDefinitions: string;
  /** The entry yaml and every yaml it imports (transitively), as package paths. */
  vnfdFiles: string[];
}

/**
 * Reads and checks a package zip: safe entry names, TOSCA.meta present and
 * complete, listed files present with matching hashes, Entry-Definitions and
 * all its imports present, inside the package and valid YAML.
 * Throws PackageError; the VNFD's meaning is checked later by buildVnfd.
 */
export function readCsar(zip: Buffer, limits: PackageLimits = PACKAGE_LIMIT_DEFAULTS): Csar {
  const files = unzipPackage(zip, limits);

  const metaFile = files[TOSCA_META_PATH];
  if (metaFile === undefined) throw new PackageError(missingMetaReason(files));
  const meta = parseToscaMeta(metaFile.toString('utf8'));

  const entryDefinitions = toPackagePath(meta.entryDefinitions);
  if (entryDefinitions === undefined) {
    throw new PackageError(`${TOSCA_META_PATH}: Entry-Definitions "${meta.entryDefinitions}" points outside the package`);
  }
  if (files[entryDefinitions] === undefined) {
    throw new PackageError(
      `${TOSCA_META_PATH}: Entry-Definitions "${meta.entryDefinitions}" is not in the package`,
    );
  }

  verifyListedFiles(meta, files);
  const vnfdFiles = collectVnfdFiles(files, entryDefinitions);
  return { files, meta, entryDefinitions, vnfdFiles };
}

function missingMetaReason(files: Record<string, Buffer>): string {
  const base = `The package has no ${TOSCA_META_PATH}`;
  // A common mistake: zipping the package folder itself, which nests everything one level down.
  const nested = Object.keys(files).find((p) => p.endsWith(`/${TOSCA_META_PATH}`));
  return nested
    ? `${base}; found ${nested} instead: zip the package folder's contents, not the folder`
    : base;
}
