/**
 * Zips each sample package folder under samples/ into <name>.zip.
 *   npx tsx samples/build.ts [outDir]     (default: samples/dist/)
 * A sample folder is one holding TOSCA-Metadata/TOSCA.meta. Zips are
 * reproducible (sorted entries, fixed timestamps) so a rebuilt sample
 * has the same bytes and the same package checksum.
 */
import AdmZip from 'adm-zip';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Fixed entry time: zips built from the same files are byte-identical. */
const ENTRY_TIME = new Date(Date.UTC(2024, 0, 1));

/** All files under `dir`, keyed by '/'-separated path relative to it. */
export function readFolderFiles(dir: string): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else files[path] = readFileSync(join(dir, path));
    }
  };
  walk('');
  return files;
}

/** Zips package files with their paths as entry names. */
export function zipFiles(files: Record<string, Buffer>): Buffer {
  const zip = new AdmZip();
  for (const path of Object.keys(files).sort()) {
    zip.addFile(path, files[path]);
    zip.getEntry(path)!.header.time = ENTRY_TIME;
  }
  return zip.toBuffer();
}

/** The package zip of one sample folder. */
export function zipFolder(dir: string): Buffer {
  return zipFiles(readFolderFiles(dir));
}

/** Names of the sample package folders in samples/. */
export function sampleNames(samplesDir: string = __dirname): string[] {
  return readdirSync(samplesDir)
    .filter((name) => existsSync(join(samplesDir, name, 'TOSCA-Metadata', 'TOSCA.meta')))
    .sort();
}

function main(): void {
  const outDir = resolve(process.argv[2] ?? join(__dirname, 'dist'));
  mkdirSync(outDir, { recursive: true });
  for (const name of sampleNames()) {
    const out = join(outDir, `${name}.zip`);
    writeFileSync(out, zipFolder(join(__dirname, name)));
    console.log(`wrote ${out}`);
  }
}

if (require.main === module) main();
