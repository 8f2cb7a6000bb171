import crypto from 'node:crypto';
import { PACKAGE_LIMIT_DEFAULTS, PackageError } from '../../vnfpkg';
import { parseYamlFile } from '../../vnfpkg/yaml-file';
import {
  loadZip, readZip, renameZipEntry, sha256, tackerSampleFiles, tackerSampleZip, zipFiles, type PackageFiles,
} from '../support/vnfpkg-fixtures';

const V2 = 'v2_userdata_standard';
const V2_TOP = 'Definitions/v2_sample3_top.vnfd.yaml';
const V2_DF = 'Definitions/v2_sample3_df_simple.yaml';
const META = 'TOSCA-Metadata/TOSCA.meta';

/** v2_userdata_standard with one file edited (or removed when edit returns undefined). */
function v2With(path: string, edit: (text: string) => string | undefined): Buffer {
  const files = tackerSampleFiles(V2);
  const edited = edit(files[path].toString('utf8'));
  if (edited === undefined) delete files[path];
  else files[path] = Buffer.from(edited);
  return zipFiles(files);
}

async function rejection(zip: Buffer): Promise<string> {
  try {
    await readZip(zip);
  } catch (err) {
    expect(err).toBeInstanceOf(PackageError);
    return (err as PackageError).reason;
  }
  throw new Error('expected the package to be rejected');
}

describe('readCsar on Tacker sample packages', () => {
  it('reads v2_userdata_standard: files, TOSCA.meta and the import closure', async () => {
    const csar = await readZip(tackerSampleZip(V2));
    expect(csar.meta).toEqual({
      toscaMetaFileVersion: '1.0',
      csarVersion: '1.1',
      createdBy: 'Onboarding portal',
      entryDefinitions: V2_TOP,
      entries: [],
    });
    expect(csar.entryDefinitions).toBe(V2_TOP);
    expect(csar.vnfdFiles).toEqual([
      V2_TOP,
      'Definitions/etsi_nfv_sol001_common_types.yaml',
      'Definitions/etsi_nfv_sol001_vnfd_types.yaml',
      'Definitions/v2_sample3_types.yaml',
      V2_DF,
    ]);
    expect(Object.keys(csar.files)).toEqual(expect.arrayContaining([
      'BaseHOT/simple/sample3.yaml', 'BaseHOT/simple/nested/VDU1.yaml', META,
    ]));
  });

  it('parses per-file TOSCA.meta blocks and verifies real hashes (kubernetes)', async () => {
    const { csar, file } = await loadZip(tackerSampleZip('kubernetes_vnf_package'));
    expect(csar.meta.createdBy).toBe('Dummy User');
    expect(csar.meta.entries.map((e) => e.name)).toEqual([
      'Files/images/ubuntu-20.04-server-cloudimg-amd64.img',
      'Scripts/install_k8s_cluster.sh',
      'Scripts/install_helm.sh',
      'Scripts/kubernetes_mgmt.py',
    ]);
    const mgmt = csar.meta.entries[3];
    expect(mgmt).toMatchObject({ contentType: 'text/x-python', algorithm: 'SHA-256' });
    expect(mgmt.hash).toBe(sha256(await file('Scripts/kubernetes_mgmt.py')));
    expect(csar.files['Scripts/kubernetes_mgmt.py'].sha256).toBe(mgmt.hash);
  });

  it('accepts a placeholder hash (private registry: "<Calculated value here>")', async () => {
    const csar = await readZip(tackerSampleZip('private_registry_vnf_package'));
    expect(csar.meta.entries[1]).toMatchObject({ name: 'Scripts/private_registry_mgmt.py', hash: '<Calculated value here>' });
  });
});

describe('readCsar rejections', () => {
  it('rejects data that is not a zip', async () => {
    expect(await rejection(Buffer.from('not a zip at all'))).toMatch(/^The package is not a readable zip file/);
  });

  it('rejects a zip-slip entry name', async () => {
    const files: PackageFiles = { ...tackerSampleFiles(V2), 'xx/evil.sh': Buffer.from('x') };
    const zip = renameZipEntry(zipFiles(files), 'xx/evil.sh', '../evil.sh');
    expect(await rejection(zip)).toBe(
      `Zip entry "../evil.sh" is an absolute path or contains '..'; package entries must be relative paths inside the package`,
    );
  });

  it('rejects an absolute entry name', async () => {
    const files: PackageFiles = { ...tackerSampleFiles(V2), 'xetc/passwd': Buffer.from('x') };
    const zip = renameZipEntry(zipFiles(files), 'xetc/passwd', '/etc/passwd');
    expect(await rejection(zip)).toMatch(/^Zip entry "\/etc\/passwd" is an absolute path/);
  });

  it('rejects a package without TOSCA-Metadata/TOSCA.meta', async () => {
    expect(await rejection(v2With(META, () => undefined))).toBe('The package has no TOSCA-Metadata/TOSCA.meta');
  });

  it('explains a package zipped with its folder', async () => {
    const files = tackerSampleFiles(V2);
    const nested = Object.fromEntries(Object.entries(files).map(([p, c]) => [`pkg/${p}`, c]));
    expect(await rejection(zipFiles(nested))).toMatch(/found pkg\/TOSCA-Metadata\/TOSCA.meta instead/);
  });

  it('rejects TOSCA.meta without required keys', async () => {
    const zip = v2With(META, (t) => t.replace(/^Entry-Definitions:.*$/m, '').replace(/^CSAR-Version:.*\n/m, ''));
    expect(await rejection(zip)).toBe(
      'TOSCA-Metadata/TOSCA.meta is missing required key(s) in its first block: CSAR-Version, Entry-Definitions',
    );
  });

  it('rejects a missing Entry-Definitions file', async () => {
    expect(await rejection(v2With(V2_TOP, () => undefined))).toBe(
      `TOSCA-Metadata/TOSCA.meta: Entry-Definitions "${V2_TOP}" is not in the package`,
    );
  });

  it('rejects YAML syntax errors, naming the file and line', async () => {
    const zip = v2With(V2_DF, (t) => t.replace('description: Simple deployment flavour', 'description: a: b'));
    expect(await rejection(zip)).toBe(
      `${V2_DF}: invalid YAML at line 3, column 14: Nested mappings are not allowed in compact mappings`,
    );
  });

  it('rejects duplicate keys as invalid YAML', async () => {
    const zip = v2With(V2_TOP, (t) => t.replace('description: Sample VNF', 'description: Sample VNF\ndescription: again'));
    expect(await rejection(zip)).toMatch(new RegExp(`^${V2_TOP}: invalid YAML at line 4, .*Map keys must be unique`));
  });

  it('rejects an import that resolves outside the package', async () => {
    const zip = v2With(V2_TOP, (t) => t.replace('imports:\n', 'imports:\n  - ../../etc/x.yaml\n'));
    expect(await rejection(zip)).toBe(`${V2_TOP} imports "../../etc/x.yaml", which resolves outside the package`);
  });

  it('rejects a missing import, pointing at the ETSI type files', async () => {
    const files = tackerSampleFiles(V2);
    delete files['Definitions/etsi_nfv_sol001_vnfd_types.yaml'];
    expect(await rejection(zipFiles(files))).toBe(
      `${V2_TOP} imports "etsi_nfv_sol001_vnfd_types.yaml", but the package has no Definitions/etsi_nfv_sol001_vnfd_types.yaml` +
      ' (the ETSI SOL001 type files must be included in the package)',
    );
  });

  it('rejects a remote import', async () => {
    const url = 'https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml';
    const zip = v2With(V2_DF, (t) => t.replace('  - etsi_nfv_sol001_common_types.yaml', `  - ${url}`));
    expect(await rejection(zip)).toMatch(/imports "https:.*" from the network; remote imports are not supported/);
  });

  it('rejects a file whose content does not match its TOSCA.meta hash', async () => {
    const files = tackerSampleFiles('kubernetes_vnf_package');
    files['Scripts/install_helm.sh'] = Buffer.from('#!/bin/sh\necho tampered\n');
    expect(await rejection(zipFiles(files))).toMatch(
      /^TOSCA-Metadata\/TOSCA.meta: SHA-256 hash mismatch for "Scripts\/install_helm.sh": TOSCA.meta says [0-9a-f]{64}, the file hashes to [0-9a-f]{64}$/,
    );
  });

  it('rejects a file TOSCA.meta lists but the package lacks', async () => {
    const files = tackerSampleFiles('kubernetes_vnf_package');
    delete files['Scripts/install_k8s_cluster.sh'];
    expect(await rejection(zipFiles(files))).toBe(
      'TOSCA-Metadata/TOSCA.meta lists "Scripts/install_k8s_cluster.sh", but the package has no such file',
    );
  });

  it('rejects an unsupported hash algorithm', async () => {
    const files = tackerSampleFiles('kubernetes_vnf_package');
    files[META] = Buffer.from(files[META].toString('utf8').replace('Algorithm: SHA-256', 'Algorithm: MD5'));
    expect(await rejection(zipFiles(files))).toMatch(/unsupported hash algorithm "MD5"/);
  });
});

describe('YAML reading', () => {
  it('accepts an unindented flow-sequence continuation, as PyYAML does (ETSI SOL001 v2.6.1 file)', async () => {
    const text = 'a:\n  b:\n    - valid_values: [ x, y,\nz ]\n  c: 1\n';
    expect(parseYamlFile({ 'f.yaml': Buffer.from(text) }, 'f.yaml')).toEqual({
      a: { b: [{ valid_values: ['x', 'y', 'z'] }], c: 1 },
    });
  });
});

describe('zip entries read by streaming', () => {
  /** v2_userdata_standard plus `extra`, with the central directory header of `name` changed by `patch` (offset of the header given). */
  function patched(name: string, patch: (zip: Buffer, cen: number) => void, extra: PackageFiles = { [name]: Buffer.from('some content, some content, some content') }): Buffer {
    const zip = zipFiles({ ...tackerSampleFiles(V2), ...extra });
    const cen = zip.lastIndexOf(Buffer.from(name)) - 46;
    expect(zip.readUInt32LE(cen)).toBe(0x02014b50);
    patch(zip, cen);
    return zip;
  }

  it('rejects an encrypted entry', async () => {
    const zip = patched('Files/secret.bin', (z, cen) => z.writeUInt16LE(z.readUInt16LE(cen + 8) | 1, cen + 8));
    expect(await rejection(zip)).toBe('Zip entry "Files/secret.bin" is encrypted');
  });

  it('rejects a compression method other than stored and deflated', async () => {
    const zip = patched('Files/x.bz2', (z, cen) => z.writeUInt16LE(12, cen + 10));
    expect(await rejection(zip)).toBe('Zip entry "Files/x.bz2" uses compression method 12; only stored and deflated entries are supported');
  });

  it('rejects an entry whose CRC-32 does not match its bytes', async () => {
    const zip = patched('Files/x.txt', (z, cen) => z.writeUInt32LE(z.readUInt32LE(cen + 16) ^ 1, cen + 16));
    expect(await rejection(zip)).toBe(`Zip entry "Files/x.txt" cannot be extracted (its size or CRC does not match the zip's directory)`);
  });

  it('rejects a name twice, and a file that is also a folder', async () => {
    const twice = renameZipEntry(zipFiles({ ...tackerSampleFiles(V2), 'Files/a1.txt': Buffer.from('1'), 'Files/a2.txt': Buffer.from('2') }), 'Files/a2.txt', 'Files/a1.txt');
    expect(await rejection(twice)).toBe('Zip entry "Files/a1.txt" appears more than once in the package');
    const both = zipFiles({ ...tackerSampleFiles(V2), 'Files/a': Buffer.from('1'), 'Files/a/b': Buffer.from('2') });
    expect(await rejection(both)).toBe('Zip entry "Files/a/b" is inside "Files/a", which is a file of the package too');
  });

  it('reads only TOSCA.meta and the VNFD files into memory, within PACKAGE_MAX_VNFD_FILES_BYTES', async () => {
    const files: PackageFiles = { ...tackerSampleFiles(V2), 'Files/big.bin': crypto.randomBytes(256 * 1024) };
    const csar = await readZip(zipFiles(files));
    expect(Object.keys(csar.texts).sort()).toEqual([META, ...csar.vnfdFiles].sort());
    expect(csar.files['Files/big.bin']).toMatchObject({ size: 256 * 1024, sha256: sha256(files['Files/big.bin']) });
    const vnfdBytes = [META, ...csar.vnfdFiles].reduce((n, p) => n + files[p].length, 0);
    const limits = { ...PACKAGE_LIMIT_DEFAULTS, vnfdFileBytes: vnfdBytes - 1 };
    await expect(readZip(zipFiles(files), limits)).rejects.toThrow(/more than \d+ bytes together \(PACKAGE_MAX_VNFD_FILES_BYTES\); stopped at Definitions\//);
    await expect(readZip(zipFiles(files), { ...limits, vnfdFileBytes: vnfdBytes })).resolves.toBeDefined();
  });
});
