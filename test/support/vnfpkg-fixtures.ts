/**
 * Test packages built from Tacker's sample folders (read-only, under
 * ../shared/tacker-samples beside the checkout). Tacker's own build step adds the ETSI type
 * files and the real scripts/images; here the type files are copied from the
 * private registry sample and every other absent file gets a small stand-in.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import { readFolderFiles, zipFiles } from '../../samples/build';
import { loadPackage, PACKAGE_LIMIT_DEFAULTS, readCsar, type Csar, type PackageLimits, type Vnfd } from '../../vnfpkg';
import { DirectoryContentStore, packageKeys, type ContentStore } from '../../store/content';

export type PackageFiles = Record<string, Buffer>;

export const TACKER_SAMPLES = resolve(__dirname, '../../../shared/tacker-samples');
const ETSI_TYPES_DIR = join(TACKER_SAMPLES, 'private_registry_vnf_package', 'Definitions');
const ETSI_TYPE_FILES = ['etsi_nfv_sol001_common_types.yaml', 'etsi_nfv_sol001_vnfd_types.yaml'];
const META = 'TOSCA-Metadata/TOSCA.meta';

export { readFolderFiles, zipFiles };

/** A Tacker sample folder completed into a loadable package. */
export function tackerSampleFiles(name: string): PackageFiles {
  const files = readFolderFiles(join(TACKER_SAMPLES, name));
  const etsi = readFolderFiles(ETSI_TYPES_DIR);
  for (const typeFile of ETSI_TYPE_FILES) files[`Definitions/${typeFile}`] ??= etsi[typeFile];
  addMetaStandIns(files);
  addArtifactStandIns(files);
  return files;
}

export function tackerSampleZip(name: string): Buffer {
  return zipFiles(tackerSampleFiles(name));
}

/** Stand-in content for a file the sample leaves out. */
function standIn(path: string): Buffer {
  return Buffer.from(`stand-in for ${path}\n`);
}

/** Files listed in TOSCA.meta; a real (hex) Hash is rewritten to the stand-in's hash. */
function addMetaStandIns(files: PackageFiles): void {
  let currentName: string | undefined;
  const lines = files[META].toString('utf8').split('\n').map((line) => {
    const [key, ...rest] = line.split(':');
    const value = rest.join(':').trim();
    if (key.trim() === 'Name') {
      currentName = value;
      if (!files[value]) files[value] = standIn(value);
    } else if (key.trim() === 'Hash' && currentName && /^[0-9a-f]+$/i.test(value)) {
      const algorithm = value.length === 128 ? 'sha512' : 'sha256';
      return `Hash: ${createHash(algorithm).update(files[currentName]).digest('hex')}`;
    }
    return line;
  });
  files[META] = Buffer.from(lines.join('\n'));
}

/** Artifact files the VNFD names, resolved as the loader does (file-relative first). */
function addArtifactStandIns(files: PackageFiles): void {
  const vnfdYaml = (p: string) => p.startsWith('Definitions/') && p.endsWith('.yaml') && !p.includes('etsi_nfv_sol001_');
  for (const path of Object.keys(files).filter(vnfdYaml)) {
    const nodes = parseYaml(files[path].toString('utf8'))?.topology_template?.node_templates ?? {};
    for (const node of Object.values<any>(nodes)) {
      for (const artifact of Object.values<any>(node?.artifacts ?? {})) {
        const file: string | undefined = typeof artifact === 'string' ? artifact : artifact?.file;
        if (!file) continue;
        const fileRelative = join('Definitions', file).replace(/\\/g, '/');
        const candidates = [fileRelative, file].filter((p) => !p.startsWith('..'));
        if (!candidates.some((p) => files[p])) files[candidates[0]] = standIn(candidates[0]);
      }
    }
  }
}

/**
 * Renames a zip entry at the byte level. adm-zip sanitizes names on write,
 * so a zip-slip name ("../evil.sh") can only be produced this way; both
 * names must have the same length.
 */
export function renameZipEntry(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('renameZipEntry: names must have equal length');
  const out = Buffer.from(zip);
  const needle = Buffer.from(from);
  for (let i = out.indexOf(needle); i >= 0; i = out.indexOf(needle, i + needle.length)) {
    Buffer.from(to).copy(out, i);
  }
  return out;
}

export function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** One throw-away directory content store for the test file, removed after its tests (jest's workers do not always see 'exit'). */
let scratch: { dir: string; store: DirectoryContentStore } | undefined;
function scratchStore(): DirectoryContentStore {
  if (!scratch) {
    const dir = fs.mkdtempSync(join(os.tmpdir(), 'vnfpkg-test-'));
    scratch = { dir, store: new DirectoryContentStore(dir) };
  }
  return scratch.store;
}
if (typeof afterAll === 'function') {
  afterAll(() => {
    if (scratch) fs.rmSync(scratch.dir, { recursive: true, force: true });
    scratch = undefined;
  });
}

/** A zip as the API leaves it: uploaded into a content store (by default a throw-away directory one) under a new package id. */
export async function uploaded(zip: Buffer, content: ContentStore = scratchStore()): Promise<{ content: ContentStore; packageId: string }> {
  const packageId = randomUUID();
  await content.put(packageKeys.zip(packageId), Readable.from([zip]), { maxBytes: Number.MAX_SAFE_INTEGER });
  return { content, packageId };
}

/** readCsar as the worker runs it: the zip uploaded first, the files extracted beside it. */
export async function readZip(zip: Buffer, limits: PackageLimits = PACKAGE_LIMIT_DEFAULTS): Promise<Csar> {
  return readCsar(await uploaded(zip), limits);
}

/** loadPackage as the worker runs it, and a reader of the extracted files. */
export async function loadZip(zip: Buffer, limits: PackageLimits = PACKAGE_LIMIT_DEFAULTS): Promise<{ csar: Csar; vnfd: Vnfd; file: (path: string) => Promise<Buffer> }> {
  const pkg = await uploaded(zip);
  const { csar, vnfd } = await loadPackage(pkg, limits);
  const file = async (path: string) => {
    const bytes = await pkg.content.getBuffer(packageKeys.file(pkg.packageId, path), Number.MAX_SAFE_INTEGER);
    if (!bytes) throw new Error(`${path} was not extracted`);
    return bytes;
  };
  return { csar, vnfd, file };
}

/** A flavour's VNFD text with these Vnflcm hooks bound to one script artifact (`file` relative to Definitions/). */
export function withLcmHooks(dfYaml: string, hooks: string[], file: string): string {
  const bound = dfYaml.replace(/(\n    VNF:\n      type: [^\n]+\n      properties:\n        flavour_description: [^\n]+\n)/, `$1      interfaces:
        Vnflcm:
${hooks.map((h) => `          ${h}: { implementation: hook-script }\n`).join('')}      artifacts:
        hook-script:
          type: tosca.artifacts.Implementation.Python
          file: ${file}
`);
  if (bound === dfYaml) throw new Error('no VNF node with a flavour_description to bind hooks to');
  return bound;
}
