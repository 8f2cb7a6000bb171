import { readCsar, PackageError } from '../vnfpkg';
import { parseYamlFile } from '../vnfpkg/yaml-file';
import {
  renameZipEntry, sha256, tackerSampleFiles, tackerSampleZip, zipFiles, type PackageFiles,
} from './vnfpkg-fixtures';

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

function rejection(zip: Buffer): string {
  try {
    readCsar(zip);
  } catch (err) {
    expect(err).toBeInstanceOf(PackageError);
    return (err as PackageError).reason;
  }
  throw new Error('expected the package to be rejected');
}

describe('readCsar on Tacker sample packages', () => {
  it('reads v2_userdata_standard: files, TOSCA.meta and the import closure', () => {
    const csar = readCsar(tackerSampleZip(V2));
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

  it('parses per-file TOSCA.meta blocks and verifies real hashes (kubernetes)', () => {
    const csar = readCsar(tackerSampleZip('kubernetes_vnf_package'));
    expect(csar.meta.createdBy).toBe('Dummy User');
    expect(csar.meta.entries.map((e) => e.name)).toEqual([
      'Files/images/ubuntu-20.04-server-cloudimg-amd64.img',
      'Scripts/install_k8s_cluster.sh',
      'Scripts/install_helm.sh',
      'Scripts/kubernetes_mgmt.py',
    ]);
    const mgmt = csar.meta.entries[3];
    expect(mgmt).toMatchObject({ contentType: 'text/x-python', algorithm: 'SHA-256' });
    expect(mgmt.hash).toBe(sha256(csar.files['Scripts/kubernetes_mgmt.py']));
  });

  it('accepts a placeholder hash (private registry: "<Calculated value here>")', () => {
    const csar = readCsar(tackerSampleZip('private_registry_vnf_package'));
    expect(csar.meta.entries[1]).toMatchObject({ name: 'Scripts/private_registry_mgmt.py', hash: '<Calculated value here>' });
  });
});

describe('readCsar rejections', () => {
  it('rejects data that is not a zip', () => {
    expect(rejection(Buffer.from('not a zip at all'))).toMatch(/^The package is not a readable zip file/);
  });

  it('rejects a zip-slip entry name', () => {
    const files: PackageFiles = { ...tackerSampleFiles(V2), 'xx/evil.sh': Buffer.from('x') };
    const zip = renameZipEntry(zipFiles(files), 'xx/evil.sh', '../evil.sh');
    expect(rejection(zip)).toBe(
      `Zip entry "../evil.sh" is an absolute path or contains '..'; package entries must be relative paths inside the package`,
    );
  });

  it('rejects an absolute entry name', () => {
    const files: PackageFiles = { ...tackerSampleFiles(V2), 'xetc/passwd': Buffer.from('x') };
    const zip = renameZipEntry(zipFiles(files), 'xetc/passwd', '/etc/passwd');
    expect(rejection(zip)).toMatch(/^Zip entry "\/etc\/passwd" is an absolute path/);
  });

  it('rejects a package without TOSCA-Metadata/TOSCA.meta', () => {
    expect(rejection(v2With(META, () => undefined))).toBe('The package has no TOSCA-Metadata/TOSCA.meta');
  });

  it('explains a package zipped with its folder', () => {
    const files = tackerSampleFiles(V2);
    const nested = Object.fromEntries(Object.entries(files).map(([p, c]) => [`pkg/${p}`, c]));
    expect(rejection(zipFiles(nested))).toMatch(/found pkg\/TOSCA-Metadata\/TOSCA.meta instead/);
  });

  it('rejects TOSCA.meta without required keys', () => {
    const zip = v2With(META, (t) => t.replace(/^Entry-Definitions:.*$/m, '').replace(/^CSAR-Version:.*\n/m, ''));
    expect(rejection(zip)).toBe(
      'TOSCA-Metadata/TOSCA.meta is missing required key(s) in its first block: CSAR-Version, Entry-Definitions',
    );
  });

  it('rejects a missing Entry-Definitions file', () => {
    expect(rejection(v2With(V2_TOP, () => undefined))).toBe(
      `TOSCA-Metadata/TOSCA.meta: Entry-Definitions "${V2_TOP}" is not in the package`,
    );
  });

  it('rejects YAML syntax errors, naming the file and line', () => {
    const zip = v2With(V2_DF, (t) => t.replace('description: Simple deployment flavour', 'description: a: b'));
    expect(rejection(zip)).toBe(
      `${V2_DF}: invalid YAML at line 3, column 14: Nested mappings are not allowed in compact mappings`,
    );
  });

  it('rejects duplicate keys as invalid YAML', () => {
    const zip = v2With(V2_TOP, (t) => t.replace('description: Sample VNF', 'description: Sample VNF\ndescription: again'));
    expect(rejection(zip)).toMatch(new RegExp(`^${V2_TOP}: invalid YAML at line 4, .*Map keys must be unique`));
  });

  it('rejects an import that resolves outside the package', () => {
    const zip = v2With(V2_TOP, (t) => t.replace('imports:\n', 'imports:\n  - ../../etc/x.yaml\n'));
    expect(rejection(zip)).toBe(`${V2_TOP} imports "../../etc/x.yaml", which resolves outside the package`);
  });

  it('rejects a missing import, pointing at the ETSI type files', () => {
    const files = tackerSampleFiles(V2);
    delete files['Definitions/etsi_nfv_sol001_vnfd_types.yaml'];
    expect(rejection(zipFiles(files))).toBe(
      `${V2_TOP} imports "etsi_nfv_sol001_vnfd_types.yaml", but the package has no Definitions/etsi_nfv_sol001_vnfd_types.yaml` +
      ' (the ETSI SOL001 type files must be included in the package)',
    );
  });

  it('rejects a remote import', () => {
    const url = 'https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml';
    const zip = v2With(V2_DF, (t) => t.replace('  - etsi_nfv_sol001_common_types.yaml', `  - ${url}`));
    expect(rejection(zip)).toMatch(/imports "https:.*" from the network; remote imports are not supported/);
  });

  it('rejects a file whose content does not match its TOSCA.meta hash', () => {
    const files = tackerSampleFiles('kubernetes_vnf_package');
    files['Scripts/install_helm.sh'] = Buffer.from('#!/bin/sh\necho tampered\n');
    expect(rejection(zipFiles(files))).toMatch(
      /^TOSCA-Metadata\/TOSCA.meta: SHA-256 hash mismatch for "Scripts\/install_helm.sh": TOSCA.meta says [0-9a-f]{64}, the file hashes to [0-9a-f]{64}$/,
    );
  });

  it('rejects a file TOSCA.meta lists but the package lacks', () => {
    const files = tackerSampleFiles('kubernetes_vnf_package');
    delete files['Scripts/install_k8s_cluster.sh'];
    expect(rejection(zipFiles(files))).toBe(
      'TOSCA-Metadata/TOSCA.meta lists "Scripts/install_k8s_cluster.sh", but the package has no such file',
    );
  });

  it('rejects an unsupported hash algorithm', () => {
    const files = tackerSampleFiles('kubernetes_vnf_package');
    files[META] = Buffer.from(files[META].toString('utf8').replace('Algorithm: SHA-256', 'Algorithm: MD5'));
    expect(rejection(zipFiles(files))).toMatch(/unsupported hash algorithm "MD5"/);
  });
});

describe('YAML reading', () => {
  it('accepts an unindented flow-sequence continuation, as PyYAML does (ETSI SOL001 v2.6.1 file)', () => {
    const text = 'a:\n  b:\n    - valid_values: [ x, y,\nz ]\n  c: 1\n';
    expect(parseYamlFile({ 'f.yaml': Buffer.from(text) }, 'f.yaml')).toEqual({
      a: { b: [{ valid_values: ['x', 'y', 'z'] }], c: 1 },
    });
  });
});
