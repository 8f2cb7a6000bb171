/**
 * A sample package under a fresh vnfdId, its YAML optionally edited: tests and
 * benchmarks onboard many copies of one sample side by side.
 */
import crypto from 'node:crypto';
import { readFolderFiles, zipFiles } from './build';

export interface Variant { zip: Buffer; vnfdId: string; files: Record<string, Buffer> }

export function sampleVariant(
  dir: string,
  o: { editYaml?: (path: string, text: string) => string; extraFiles?: Record<string, Buffer> } = {},
): Variant {
  const files = readFolderFiles(dir);
  const ids = Object.entries(files).filter(([p]) => p.startsWith('Definitions/') && p.endsWith('.yaml'))
    .map(([, b]) => /\n\s+descriptor_id:\s*([0-9a-f-]{36})/.exec(b.toString())?.[1]).filter(Boolean);
  if (!ids.length) throw new Error(`no descriptor_id in ${dir}`);
  const vnfdId = crypto.randomUUID();
  for (const p of Object.keys(files)) {
    if (!p.endsWith('.yaml')) continue;
    const text = files[p].toString().split(ids[0]!).join(vnfdId);
    files[p] = Buffer.from(o.editYaml ? o.editYaml(p, text) : text);
  }
  Object.assign(files, o.extraFiles ?? {});
  return { zip: zipFiles(files), vnfdId, files };
}

/** samples/two_vdu_vnf as version 2.0 of itself: software_version 2.0 and a new VDU image (change_vnfpkg pairs). */
export function twoVduVnfV2(yaml: string): string {
  return yaml.replace(/software_version: '1.0'/g, "software_version: '2.0'").replace(/valid_values: \[ '1.0' \]/g, "valid_values: [ '2.0' ]")
    .replace(/name: two_vdu_vnf-image\b/g, 'name: two_vdu_vnf-image-v2');
}
