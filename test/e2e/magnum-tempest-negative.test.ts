/**
 * The negative API cases of magnum-tempest-plugin (magnum_tempest_plugin/
 * tests/api/v1: test_cluster_template.py, test_cluster_template_admin.py,
 * test_cluster.py, test_magnum_service.py), ported: the same requests, sent
 * as Tempest sends them (no OpenStack-API-Version header, so 1.1), by a
 * member of a project of its own and by the admin, expecting Tempest's codes.
 */
import crypto from 'node:crypto';
import { keystoneUser, type TestUser } from '../support/identity';
import { eventually } from '../support/api';
import { mcall, templateBody } from '../support/magnum';

const run = Date.now().toString(36);
const NONE = {}; // no microversion header: Tempest's 1.1
let member: TestUser;
let h: Record<string, string>;

beforeAll(async () => {
  member = await keystoneUser(`tempest-${run}`, `tempest-user-${run}`, 'member');
  h = await member.headers();
});

const createTemplate = (extra: Record<string, unknown> = {}, headers = h) => mcall('POST', '/v1/clustertemplates', templateBody(`tempest-${crypto.randomUUID().slice(0, 8)}`, extra), headers);

describe('test_cluster_template', () => {
  it('test_create_list_delete: by uuid and by name 204; then 404 by uuid and by name', async () => {
    const a = (await createTemplate()).body;
    const b = (await createTemplate()).body;
    const list = (await mcall('GET', '/v1/clustertemplates', undefined, h)).body.clustertemplates.map((t: any) => t.uuid);
    expect(list).toEqual(expect.arrayContaining([a.uuid, b.uuid]));
    expect((await mcall('DELETE', `/v1/clustertemplates/${a.uuid}`, undefined, h)).status).toBe(204);
    expect((await mcall('DELETE', `/v1/clustertemplates/${b.name}`, undefined, h)).status).toBe(204);
    expect((await mcall('GET', `/v1/clustertemplates/${a.uuid}`, undefined, h)).status).toBe(404);
    expect((await mcall('GET', `/v1/clustertemplates/${b.name}`, undefined, h)).status).toBe(404);
    expect((await mcall('DELETE', `/v1/clustertemplates/${crypto.randomUUID()}`, undefined, h)).status).toBe(404);
  });
  it('test_create_cluster_template_public_by_user_404... 403; test_update_cluster_template_public_by_user 403', async () => {
    expect((await createTemplate({ public: true })).status).toBe(403);
    const t = (await createTemplate()).body;
    expect((await mcall('PATCH', `/v1/clustertemplates/${t.uuid}`, [{ op: 'replace', path: '/public', value: true }], h)).status).toBe(403);
  });
  it('test_update_cluster_template_name 200; a non-list patch body 400', async () => {
    const t = (await createTemplate()).body;
    const p = await mcall('PATCH', `/v1/clustertemplates/${t.uuid}`, [{ op: 'replace', path: '/name', value: `new-${run}` }], h);
    expect([p.status, p.body.name]).toEqual([200, `new-${run}`]);
    expect((await mcall('PATCH', `/v1/clustertemplates/${t.uuid}`, { op: 'replace', path: '/name', value: 'x' }, h)).status).toBe(400);
  });
  it('test_create_cluster_template_missing_image 400, missing flavor 400, missing keypair 201', async () => {
    expect((await createTemplate({ image_id: crypto.randomUUID() })).status).toBe(400);
    expect((await createTemplate({ flavor_id: `flavor-${run}` })).status).toBe(400);
    expect((await createTemplate({ keypair_id: `keypair-${run}` })).status).toBe(201);
  });
  it('test_create_cluster_template_invalid_network_driver 400, invalid volume driver 400', async () => {
    expect((await createTemplate({ network_driver: 'invalid_network_driver' })).status).toBe(400);
    expect((await createTemplate({ volume_driver: 'invalid_volume_driver' })).status).toBe(400);
  });
});

describe('test_cluster_template_admin', () => {
  it('an admin creates and patches a public template (201, 200)', async () => {
    const t = await createTemplate({ public: true }, NONE);
    expect([t.status, t.body.public]).toEqual([201, true]);
    const p = await mcall('PATCH', `/v1/clustertemplates/${t.body.uuid}`, [{ op: 'replace', path: '/public', value: false }], NONE);
    expect([p.status, p.body.public]).toEqual([200, false]);
  });
});

describe('test_cluster', () => {
  let template: string;
  beforeAll(async () => { template = (await createTemplate()).body.uuid; });
  const create = (body: Record<string, unknown>) => mcall('POST', '/v1/clusters', { cluster_template_id: template, node_count: 1, master_count: 1, ...body }, h);

  it('test_create_cluster_for_nonexisting_cluster_template 400 (at 1.1)', async () => {
    expect((await create({ cluster_template_id: crypto.randomUUID() })).status).toBe(400);
  });
  it('test_create_cluster_with_zero_masters 400', async () => {
    expect((await create({ master_count: 0 })).status).toBe(400);
  });
  it('test_create_cluster_with_nonexisting_flavor 400', async () => {
    expect((await create({ flavor_id: 'aaa' })).status).toBe(400);
  });
  it('test_create_cluster_with_zero_nodes 400 (no header: before 1.10)', async () => {
    expect((await create({ node_count: 0 })).status).toBe(400);
  });
  it('test_update_cluster_for_nonexisting_cluster 404 (the lookup comes first)', async () => {
    expect((await mcall('PATCH', '/v1/clusters/fooo', [{ op: 'replace', path: '/name', value: 'x' }], h)).status).toBe(404);
  });
  it('test_delete_cluster_for_nonexisting_cluster 404', async () => {
    expect((await mcall('DELETE', `/v1/clusters/${crypto.randomUUID()}`, undefined, h)).status).toBe(404);
  });
  it('an unknown certificate cluster: 404 to show, 400 to sign (certificate calls send latest)', async () => {
    const latest = await member.headers({ 'OpenStack-API-Version': 'container-infra latest' });
    expect((await mcall('GET', `/v1/certificates/${crypto.randomUUID()}`, undefined, latest)).status).toBe(404);
    expect((await mcall('POST', '/v1/certificates', { cluster_uuid: crypto.randomUUID(), csr: 'x' }, latest)).status).toBe(400);
  });
});

describe('ownership (beyond Tempest)', () => {
  it("another project's cluster is 404 and absent from its lists; admins list it with all_tenants", async () => {
    const other = await keystoneUser(`tempest-other-${run}`, `tempest-other-user-${run}`, 'member');
    const t = (await createTemplate()).body.uuid;
    const c = await mcall('POST', '/v1/clusters', { cluster_template_id: t, name: `own-${run}`, node_count: 0 }, await member.headers({ 'OpenStack-API-Version': 'container-infra latest' }));
    expect(c.status).toBe(202);
    const oh = await other.headers();
    expect((await mcall('GET', `/v1/clusters/${c.body.uuid}`, undefined, oh)).status).toBe(404);
    expect((await mcall('GET', '/v1/clusters', undefined, oh)).body.clusters).toEqual([]);
    expect((await mcall('GET', '/v1/clusters', undefined, NONE)).body.clusters.map((x: any) => x.uuid)).not.toContain(c.body.uuid);
    expect((await mcall('GET', '/v1/clusters?all_tenants=True', undefined, NONE)).body.clusters.map((x: any) => x.uuid)).toContain(c.body.uuid);
    expect((await mcall('DELETE', `/v1/clusters/${c.body.uuid}`, undefined, oh)).status).toBe(404);
    expect((await mcall('DELETE', `/v1/clusters/${c.body.uuid}`, undefined, h)).status).toBe(204);
  });
});

describe('test_magnum_service', () => {
  it('test_magnum_service_list_needs_admin 403', async () => {
    expect((await mcall('GET', '/v1/mservices', undefined, h)).status).toBe(403);
  });
  it('test_magnum_service_list: exactly one conductor, id 1, up (once the worker polls), reported', async () => {
    const s = await eventually('the worker polling', async () => {
      const m = (await mcall('GET', '/v1/mservices', undefined, NONE)).body.mservices;
      return m[0]?.state === 'up' ? m : undefined;
    }, 120_000, 1000);
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ id: 1, binary: 'magnum-conductor', state: 'up' });
    expect(s[0].report_count).toBeGreaterThan(0);
  });
});
