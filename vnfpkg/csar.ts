import { packageKeys, TooLarge, type ContentStore } from '../store/content';
import { collectVnfdFiles } from './imports';
import { listedAlgorithms, verifyListedFiles } from './listed-files';
import { PackageError } from './package-error';
import { toPackagePath } from './package-path';
import { PACKAGE_LIMIT_DEFAULTS, type PackageLimits } from '../common/settings/package-limits';
import { parseToscaMeta, TOSCA_META_PATH, type ToscaMeta } from './tosca-meta';
import { listEntries, type ZipFileEntry } from './zip-entries';
import { ZipExtractor } from './zip-extract';
import { openStoredZip } from './zip-source';

export { PackageError } from './package-error';
export type { ToscaMeta, ToscaMetaEntry } from './tosca-meta';

/** One file of the package: its bytes are in the content store ("<packageId>/files/<path>"). */
export interface CsarFile {
  size: number;
  sha256: string;
  /** Every digest computed while extracting (sha256, and what TOSCA.meta lists), hex by node:crypto name. */
  hashes: Record<string, string>;
}

/** A VNF package (SOL004 CSAR with TOSCA-Metadata), extracted into the content store and checked. */
export interface Csar {
  /** Every file, by normalized package path ("Definitions/x.yaml"). */
  files: Record<string, CsarFile>;
  /** The only contents read into memory: TOSCA.meta and the VNFD files. */
  texts: Record<string, Buffer>;
  /** TOSCA-Metadata/TOSCA.meta, parsed. */
  meta: ToscaMeta;
  /** Package path of the top VNFD yaml. */
  entryDefinitions: string;
  /** The entry yaml and every yaml it imports (transitively), as package paths. */
  vnfdFiles: string[];
}

/** A package's content: its zip at packageKeys.zip(packageId); its files go to packageKeys.file(packageId, path). */
export interface PackageContent {
  content: ContentStore;
  packageId: string;
}

/**
 * Reads and checks a package zip from the content store, streaming every
 * file into the store beside it: safe entry names, TOSCA.meta present and
 * complete, listed files present with matching hashes, Entry-Definitions and
 * all its imports present, inside the package and valid YAML.
 * Throws PackageError; the VNFD's meaning is checked later by buildVnfd.
 */
export async function readCsar(pkg: PackageContent, limits: PackageLimits = PACKAGE_LIMIT_DEFAULTS): Promise<Csar> {
  const { content, packageId } = pkg;
  const zip = await openStoredZip(content, packageKeys.zip(packageId));
  if (!zip) throw new Error(`VNF package ${packageId} has no uploaded zip in the ${content.kind} content store`);
  const budget = new VnfdBudget(limits.vnfdFileBytes);
  let files: Record<string, CsarFile>;
  let metaText: Buffer | undefined;
  try {
    ({ files, metaText } = await extractAll(pkg, await listEntries(zip, limits), new ZipExtractor(zip, limits), budget));
  } finally {
    zip.close();
  }

  if (metaText === undefined) throw new PackageError(missingMetaReason(files));
  const meta = parseToscaMeta(metaText.toString('utf8'));

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
  const { paths, texts } = await collectVnfdFiles({
    has: (path) => files[path] !== undefined,
    load: (path) => budget.load(path, files[path].size, (max) => content.getBuffer(packageKeys.file(packageId, path), max)),
  }, entryDefinitions);
  return { files, meta, entryDefinitions, vnfdFiles: paths, texts: { ...texts, [TOSCA_META_PATH]: metaText } };
}

/**
 * Every file into the content store, TOSCA.meta first (kept in memory too):
 * it says which digests the others need, computed as they stream by.
 */
async function extractAll(pkg: PackageContent, entries: ZipFileEntry[], extractor: ZipExtractor, budget: VnfdBudget) {
  const { content, packageId } = pkg;
  await content.deletePrefix(packageKeys.files(packageId)); // what an earlier attempt left
  const sink = (path: string) => (bytes: AsyncIterable<Buffer>, maxBytes: number) => content.put(packageKeys.file(packageId, path), bytes, { maxBytes });
  const files: Record<string, CsarFile> = {};
  const metaEntry = entries.find((e) => e.path === TOSCA_META_PATH);
  let metaText: Buffer | undefined;
  let wanted = new Map<string, string[]>();
  if (metaEntry) {
    const meta = await extractor.extract(metaEntry, sink(metaEntry.path), { keep: budget.keepFor(TOSCA_META_PATH) });
    metaText = budget.took(meta.kept!);
    files[TOSCA_META_PATH] = { size: meta.size, sha256: meta.hashes.sha256, hashes: meta.hashes };
    wanted = listedAlgorithms(metaText.toString('utf8'));
  }
  for (const entry of entries.filter((e) => e !== metaEntry)) {
    const got = await extractor.extract(entry, sink(entry.path), { algorithms: wanted.get(entry.path) });
    files[entry.path] = { size: got.size, sha256: got.hashes.sha256, hashes: got.hashes };
  }
  return { files, metaText };
}

/** What TOSCA.meta and the VNFD files may hold in memory together (PACKAGE_MAX_VNFD_FILES_BYTES). */
class VnfdBudget {
  private left: number;

  constructor(private readonly max: number) {
    this.left = max;
  }

  keepFor(path: string) {
    return { maxBytes: this.left, tooBig: () => this.exceeded(path) };
  }

  took(bytes: Buffer): Buffer {
    this.left -= bytes.length;
    return bytes;
  }

  async load(path: string, size: number, read: (maxBytes: number) => Promise<Buffer | undefined>): Promise<Buffer> {
    if (size > this.left) throw this.exceeded(path);
    const bytes = await read(this.left).catch((e: unknown) => { throw e instanceof TooLarge ? this.exceeded(path) : e; });
    if (!bytes) throw new Error(`${path} was extracted but is not in the content store`);
    return this.took(bytes);
  }

  private exceeded(path: string): PackageError {
    return new PackageError(`TOSCA.meta and the VNFD files (Entry-Definitions and its imports) are more than ${this.max} bytes together (PACKAGE_MAX_VNFD_FILES_BYTES); stopped at ${path}`);
  }
}

function missingMetaReason(files: Record<string, unknown>): string {
  const base = `The package has no ${TOSCA_META_PATH}`;
  // A common mistake: zipping the package folder itself, which nests everything one level down.
  const nested = Object.keys(files).find((p) => p.endsWith(`/${TOSCA_META_PATH}`));
  return nested
    ? `${base}; found ${nested} instead: zip the package folder's contents, not the folder`
    : base;
}
