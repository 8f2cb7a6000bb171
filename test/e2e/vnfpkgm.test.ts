/**
 * SOL005 package management through the real API and the onboarding
 * workflow: Tacker's sample packages onboard, broken ones return to CREATED
 * with the reason, states and 409s follow the spec.
 */
import AdmZip from 'adm-zip';
import path from 'node:path';
import { sampleVariant } from '../../samples/variant';
import { call, onboard } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';
import { renameZipEntry, tackerSampleFiles, zipFiles } from '../support/vnfpkg-fixtures';

const TACKER: [string, string][] = [
  ['private_registry_vnf_package', 'b1bb0ce7-ebca-4fa7-95ed-4840d70a1189'],
  ['kubernetes_vnf_package', 'b1db0ce7-ebca-1fb7-95ed-4840d70a1163'],
  ['v2_userdata_standard', 'b1bb0ce7-ebca-4fa7-95ed-4840d7000000'],
  ['v2_userdata_standard_change_vnfpkg', 'b1bb0ce7-ebca-4fa7-95ed-4840d7000000'],
];

// Tacker's samples onboard in a project of their own: other test files onboard some of them in the admin project (a vnfdId is unique per project).
let samples: TestUser;
beforeAll(async () => { samples = await keystoneUser('vnfpkgm-samples', 'vnfpkgm-samples-member', 'member'); });

test.each(TACKER)('Tacker sample %s onboards through the API', async (name, vnfdId) => {
  const as = await samples.headers();
  const p = await onboard(zipFiles(tackerSampleFiles(name)), as);
  expect(p.onboardingFailureDetails).toBeUndefined();
  expect(p.onboardingState).toBe('ONBOARDED');
  expect(p.operationalState).toBe('ENABLED');
  expect(p.usageState).toBe('NOT_IN_USE');
  expect(p.vnfdId).toBe(vnfdId);
  expect(p.vnfProvider).toBe('Company');
  expect(p.softwareImages.length + p.additionalArtifacts.length).toBeGreaterThan(0);
  // Two of Tacker's samples share a vnfdId, which a project may onboard once: make room for the next.
  expect((await call('PATCH', `/vnfpkgm/v1/vnf_packages/${p.id}`, { operationalState: 'DISABLED' }, as)).status).toBe(200);
  expect((await call('DELETE', `/vnfpkgm/v1/vnf_packages/${p.id}`, undefined, as)).status).toBe(204);
});

test('VnfPkgInfo as SOL005 shapes it: softwareImages with createdAt, minDisk, minRam and size; a list leaves out softwareImages, additionalArtifacts, userDefinedData and checksum unless the attribute selectors ask for them', async () => {
  const user = await keystoneUser('vnfpkgm-sol005', 'vnfpkgm-sol005-member', 'member');
  const as = await user.headers();
  const p = await onboard(zipFiles(tackerSampleFiles('v2_userdata_standard')), as);
  // sw_image_data: min_disk 0 GB, min_ram 256 MB, size 12 GB
  const image = p.softwareImages.find((i: any) => i.name === 'cirros-0.5.2-x86_64-disk');
  expect(image).toMatchObject({ minDisk: 0, minRam: 256, size: 12 * 1024 ** 3, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/) });
  expect(Object.values(p).includes(null)).toBe(false);
  const list = async (q: string) => {
    const r = await call('GET', `/vnfpkgm/v1/vnf_packages?filter=(eq,id,${p.id})${q}`, undefined, as);
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(1);
    return Object.keys(r.body[0]);
  };
  const excluded = ['softwareImages', 'additionalArtifacts', 'userDefinedData', 'checksum'];
  for (const q of ['', '&exclude_default']) {
    const keys = await list(q);
    expect(keys).toEqual(expect.arrayContaining(['id', 'vnfdId', 'onboardingState', 'operationalState', 'usageState', '_links']));
    expect(keys.filter((k) => excluded.includes(k))).toEqual([]);
  }
  expect(await list('&all_fields')).toEqual(expect.arrayContaining(excluded));
  expect((await list('&fields=softwareImages,checksum')).filter((k) => excluded.includes(k)).sort()).toEqual(['checksum', 'softwareImages']);
  expect((await list('&exclude_fields=userDefinedData')).filter((k) => excluded.includes(k)).sort()).toEqual(['additionalArtifacts', 'checksum', 'softwareImages']);
  const bad = await call('GET', '/vnfpkgm/v1/vnf_packages?all_fields&fields=checksum', undefined, as);
  expect(bad.status).toBe(400);
  expect(bad.body.detail).toMatch(/all_fields cannot be combined with fields/);
  expect((await call('GET', '/vnfpkgm/v1/vnf_packages?exclude_fields=_links', undefined, as)).body.detail).toMatch(/exclude_fields: _links cannot be excluded/);
  expect((await call('PATCH', `/vnfpkgm/v1/vnf_packages/${p.id}`, { operationalState: 'DISABLED' }, as)).status).toBe(200);
  expect((await call('DELETE', `/vnfpkgm/v1/vnf_packages/${p.id}`, undefined, as)).status).toBe(204);
});

test('a vnfdId is onboarded once per project: a second upload of it fails with the reason', async () => {
  const { zip } = sampleVariant(path.resolve(__dirname, '../../samples/one_vdu_vnf'));
  const first = await onboard(zip);
  expect(first.onboardingState).toBe('ONBOARDED');
  const second = await onboard(zip);
  expect(second.onboardingState).toBe('CREATED');
  expect(second.onboardingFailureDetails.detail).toContain(`already onboarded in this project as VNF package ${first.id}`);
});

test('package lifecycle: vnfd, content, artifacts, PATCH, DELETE', async () => {
  const { zip } = sampleVariant(path.resolve(__dirname, '../../samples/two_vdu_vnf'));
  const p = await onboard(zip);
  expect(p.onboardingState).toBe('ONBOARDED');
  const base = `/vnfpkgm/v1/vnf_packages/${p.id}`;

  // A second upload is refused once onboarded.
  expect((await call('PUT', `${base}/package_content`, zip)).status).toBe(409);

  const { apiUrl, adminToken } = await import('../support/api');
  const vnfd = await fetch(`${apiUrl()}${base}/vnfd`, { headers: { accept: 'application/zip', 'x-auth-token': await adminToken() } });
  expect(vnfd.status).toBe(200);
  const entries = new AdmZip(Buffer.from(await vnfd.arrayBuffer())).getEntries().map((e) => e.entryName);
  expect(entries).toContain('TOSCA-Metadata/TOSCA.meta');
  expect(entries.some((e) => e.endsWith('_df_simple.yaml'))).toBe(true);

  const content = await fetch(`${apiUrl()}${base}/package_content`, { headers: { 'x-auth-token': await adminToken() } });
  expect(Buffer.from(await content.arrayBuffer()).equals(zip)).toBe(true);

  const hot = await call('GET', `${base}/artifacts/BaseHOT/simple/nested/VDU1.yaml`);
  expect(hot.status).toBe(200);
  expect(hot.text).toContain('OS::Nova::Server');
  expect((await call('GET', `${base}/artifacts/Nope/x.sh`)).status).toBe(404);

  // Enabled packages cannot be deleted; disabling twice is a conflict.
  expect((await call('DELETE', base)).status).toBe(409);
  const patch = await call('PATCH', base, { operationalState: 'DISABLED', userDefinedData: { owner: 'ops', test: null } });
  expect(patch.status).toBe(200);
  expect(patch.body.operationalState).toBe('DISABLED');
  expect((await call('PATCH', base, { operationalState: 'DISABLED' })).status).toBe(409);
  const got = (await call('GET', base)).body;
  expect(got.userDefinedData).toEqual({ owner: 'ops' });
  expect((await call('PATCH', base, { operationalState: 'PAUSED' })).status).toBe(400);
  expect((await call('DELETE', base)).status).toBe(204);
  expect((await call('GET', base)).status).toBe(404);
});

function broken(mutate: (files: Record<string, Buffer>) => void): Buffer {
  const files = tackerSampleFiles('v2_userdata_standard');
  mutate(files);
  return zipFiles(files);
}

test.each([
  ['no TOSCA.meta', broken((f) => delete f['TOSCA-Metadata/TOSCA.meta']), /TOSCA\.meta/],
  ['bad YAML', broken((f) => { f['Definitions/v2_sample3_df_simple.yaml'] = Buffer.from('a: [b\n  c: :'); }), /v2_sample3_df_simple\.yaml/],
  ['missing Entry-Definitions', broken((f) => delete f['Definitions/v2_sample3_top.vnfd.yaml']), /v2_sample3_top\.vnfd\.yaml/],
  ['import outside the package', broken((f) => {
    f['Definitions/v2_sample3_top.vnfd.yaml'] = Buffer.from(String(f['Definitions/v2_sample3_top.vnfd.yaml']).replace('- v2_sample3_types.yaml', '- ../../etc/passwd.yaml'));
  }), /outside|\.\.\/\.\.\/etc/],
])('broken package (%s) returns to CREATED with the reason', async (_name, zip, reason) => {
  const p = await onboard(zip as Buffer);
  expect(p.onboardingState).toBe('CREATED');
  expect(p.operationalState).toBe('DISABLED');
  expect(p.onboardingFailureDetails.detail).toMatch(reason as RegExp);
  // nothing half-written: no VNFD, no artifacts, and a fresh upload is allowed again
  expect((await call('GET', `/vnfpkgm/v1/vnf_packages/${p.id}/vnfd`)).status).toBe(409);
  expect(p.vnfdId).toBeUndefined();
});

test('zip-slip entry names are refused', async () => {
  const files = tackerSampleFiles('v2_userdata_standard');
  files['xxxxxxxxxx.txt'] = Buffer.from('x');
  const p = await onboard(renameZipEntry(zipFiles(files), 'xxxxxxxxxx.txt', '../../evil.txt'));
  expect(p.onboardingState).toBe('CREATED');
  expect(p.onboardingFailureDetails.detail).toMatch(/evil\.txt/);
  // re-upload of a good zip to the same package works
  const up = await call('PUT', `/vnfpkgm/v1/vnf_packages/${p.id}/package_content`, zipFiles(tackerSampleFiles('v2_userdata_standard')));
  expect(up.status).toBe(202);
});

test('package API input errors', async () => {
  expect((await call('POST', '/vnfpkgm/v1/vnf_packages', { userDefinedData: 'x' })).status).toBe(400);
  expect((await call('GET', '/vnfpkgm/v1/vnf_packages/nope')).status).toBe(404);
  const created = await call('POST', '/vnfpkgm/v1/vnf_packages', {});
  expect(created.status).toBe(201);
  expect((await call('GET', `/vnfpkgm/v1/vnf_packages/${created.body.id}/package_content`)).status).toBe(409);
  expect((await call('PUT', `/vnfpkgm/v1/vnf_packages/${created.body.id}/package_content`, Buffer.alloc(0))).status).toBe(400);
  const notZip = await onboard(Buffer.from('this is not a zip'));
  expect(notZip.onboardingState).toBe('CREATED');
});
