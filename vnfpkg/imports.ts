import { PackageError } from './package-error';
import { isUrl, resolveFrom } from './package-path';
import { parseYamlFile } from './yaml-file';
import { isMap, optList } from './yaml-values';

/** The VNFD's files read so far, and how to read one more (from the content store, within the package's budget). */
export interface VnfdFileReader {
  /** Whether the package has this file. */
  has(path: string): boolean;
  load(path: string): Promise<Buffer>;
}

/**
 * Follows `imports:` from the entry definitions through every imported file
 * and returns their package paths (entry first, each file once, depth-first
 * in import order) with their contents: the only files of the package read
 * into memory. Imports resolve relative to the importing file's folder
 * and must stay inside the package: the orchestrator never fetches type
 * definitions from the network, so even the ETSI SOL001 type files have to
 * be shipped in the package (Tacker's sample build copies them in).
 */
export async function collectVnfdFiles(reader: VnfdFileReader, entryDefinitions: string): Promise<{ paths: string[]; texts: Record<string, Buffer> }> {
  const paths: string[] = [];
  const texts: Record<string, Buffer> = {};
  const visit = async (path: string) => {
    if (paths.includes(path)) return;
    paths.push(path);
    texts[path] = await reader.load(path);
    for (const name of importNames(texts, path)) await visit(resolveImport(reader, path, name));
  };
  await visit(entryDefinitions);
  return { paths, texts };
}

/** The file names in a YAML file's `imports:` list. */
function importNames(files: Record<string, Buffer>, path: string): string[] {
  const doc = parseYamlFile(files, path);
  const list = optList(doc.imports, path, 'imports') ?? [];
  return list.map((item, i) => {
    const name = importFileName(item);
    if (name === undefined) {
      throw new PackageError(`${path}: imports[${i}] must be a file name or a mapping with a "file" key`);
    }
    return name;
  });
}

/** TOSCA allows "- file.yaml", "- {file: file.yaml}" and "- name: {file: file.yaml}". */
function importFileName(item: unknown): string | undefined {
  if (typeof item === 'string') return item;
  if (!isMap(item)) return undefined;
  if (typeof item.file === 'string') return item.file;
  const values = Object.values(item);
  if (values.length !== 1) return undefined;
  const [only] = values;
  if (typeof only === 'string') return only;
  return isMap(only) && typeof only.file === 'string' ? only.file : undefined;
}

function resolveImport(reader: VnfdFileReader, importer: string, name: string): string {
  if (isUrl(name)) {
    throw new PackageError(
      `${importer} imports "${name}" from the network; remote imports are not supported, include the file in the package`,
    );
  }
  const path = resolveFrom(importer, name);
  if (path === undefined) {
    throw new PackageError(`${importer} imports "${name}", which resolves outside the package`);
  }
  if (!reader.has(path)) {
    const hint = /^etsi_nfv_sol001_/.test(name.split('/').pop() ?? '')
      ? ' (the ETSI SOL001 type files must be included in the package)'
      : '';
    throw new PackageError(`${importer} imports "${name}", but the package has no ${path}${hint}`);
  }
  return path;
}
