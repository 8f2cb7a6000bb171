/**
 * The simulated Glance v2 and Cinder v3 on their own: the seeded images and
 * Glance's list filters and paging, create → upload (size and checksums
 * kept, never the bytes) → delete, JSON-patch; volumes creating → available,
 * in use while a server boots from them, 400 on deleting an attached one,
 * deleting → a real 404.
 */
import { createHash } from 'node:crypto';
import { PUBLIC_NETWORK_ID, seedImageId } from '@nfv-orchestrator/vimsim/store/seed';
import { CloudClient, http, startTestSim, type TestSim } from '../support/vimsim-helpers';

const SEED_IMAGES = [
  'ubuntu-20.04', 'ubuntu-22.04', 'cirros-0.5.2-x86_64-disk', 'one_vdu_vnf-image', 'two_vdu_vnf-image', 'two_vdu_vnf-image-v2', 'VDU1-image',
  'VDU2-VirtualStorage-image', 'Image for Private registry', 'Image for masterNode kubernetes', 'Image for workerNode kubernetes',
  'Image for masterNode HA kubernetes', 'Image for workerNode HA kubernetes',
];

describe('vimsim image (Glance v2)', () => {
  let sim: TestSim;
  let glance: CloudClient;
  const call = (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => glance.call('image', method, p, body, headers);

  beforeAll(async () => {
    sim = await startTestSim();
    glance = await CloudClient.connect(sim);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('has the public seed images, active, with stable ids and os_distro/os_version', async () => {
    const all = (await call('GET', '/images?limit=100')).body.images;
    expect(all.map((i: any) => i.name).sort()).toEqual([...SEED_IMAGES].sort());
    for (const name of SEED_IMAGES) {
      const [image] = (await call('GET', `/images?name=${encodeURIComponent(name)}&limit=200`)).body.images;
      expect(image).toMatchObject({ id: seedImageId(name), status: 'active', visibility: 'public', min_ram: 0, min_disk: 0, disk_format: 'qcow2' });
    }
    expect((await call('GET', `/images/${seedImageId('ubuntu-22.04')}`)).body).toMatchObject({ os_distro: 'ubuntu', os_version: '22.04' });
    expect((await call('GET', '/schemas/image')).body.name).toBe('image');
  });

  it('pages with limit and marker and a next link; filters by visibility and status', async () => {
    const first = (await call('GET', '/images?limit=5&sort_key=name&sort_dir=asc')).body;
    expect(first.images).toHaveLength(5);
    expect(first.next).toMatch(/^\/v2\/images\?/);
    const second = (await http('GET', `${sim.url}/image${first.next}`, undefined, { 'X-Auth-Token': glance.session.token })).body;
    expect(second.images[0].name > first.images[4].name).toBe(true);
    expect((await call('GET', '/images?visibility=private')).body.images).toEqual([]);
    expect((await call('GET', '/images?status=active&limit=100')).body.images).toHaveLength(SEED_IMAGES.length);
  });

  it('creates, uploads (queued → active, size and checksums), patches and deletes an image', async () => {
    const created = await call('POST', '/images', { name: 'uploaded', disk_format: 'qcow2', container_format: 'bare', visibility: 'private', os_distro: 'ubuntu' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'queued', size: null, os_distro: 'ubuntu', owner: glance.session.projectId });
    const id = created.body.id;
    const data = Buffer.alloc(300_000, 7);
    expect((await http('PUT', `${sim.url}/image/v2/images/${id}/file`, data, { 'X-Auth-Token': glance.session.token, 'Content-Type': 'application/octet-stream' })).status).toBe(204);
    const image = (await call('GET', `/images/${id}`)).body;
    expect(image).toMatchObject({ status: 'active', size: data.length, checksum: createHash('md5').update(data).digest('hex'), os_hash_algo: 'sha512', os_hash_value: createHash('sha512').update(data).digest('hex') });
    expect((await http('PUT', `${sim.url}/image/v2/images/${id}/file`, data, { 'X-Auth-Token': glance.session.token, 'Content-Type': 'application/octet-stream' })).status).toBe(409);
    const patched = await http('PATCH', `${sim.url}/image/v2/images/${id}`, JSON.stringify([{ op: 'replace', path: '/name', value: 'renamed' }, { op: 'add', path: '/os_version', value: '20.04' }]), {
      'X-Auth-Token': glance.session.token,
      'Content-Type': 'application/openstack-images-v2.1-json-patch',
    });
    expect(patched.body).toMatchObject({ name: 'renamed', os_version: '20.04' });
    expect((await call('DELETE', `/images/${id}`)).status).toBe(204);
    expect((await call('GET', `/images/${id}`, undefined, { Accept: 'application/json' })).status).toBe(404);
  });
});

describe('vimsim volume (Cinder v3)', () => {
  let sim: TestSim;
  let cinder: CloudClient;
  const call = (method: string, p: string, body?: unknown) => cinder.call('volume', method, p, body);
  const status = (id: string, wanted: string) => cinder.until('volume', `/volumes/${id}`, (b) => b.volume.status === wanted);

  beforeAll(async () => {
    sim = await startTestSim({ delayMs: 30 });
    cinder = await CloudClient.connect(sim);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('discovers its versions as cinderclient does; lists types, limits, extensions, zones', async () => {
    const root = await http('GET', `${sim.url}/volume/`);
    expect(root.body.versions[0]).toMatchObject({ id: 'v3.0', status: 'CURRENT', min_version: '3.0', version: '3.71' });
    expect((await call('GET', '/types')).body.volume_types[0].name).toBe('__DEFAULT__');
    expect((await call('GET', '/limits')).body.limits.absolute).toHaveProperty('maxTotalVolumes');
    expect((await call('GET', '/extensions')).body.extensions.length).toBeGreaterThan(0);
    expect((await call('GET', '/os-availability-zone')).body.availabilityZoneInfo[0].zoneName).toBe('nova');
  });

  it('creates a volume from an image (creating → available), boots a server from it (in-use), refuses to delete it then, deletes it after', async () => {
    const created = await call('POST', '/volumes', { volume: { size: 2, name: 'boot', imageRef: seedImageId('ubuntu-20.04') } });
    expect(created.status).toBe(202);
    expect(created.body.volume).toMatchObject({ status: 'creating', bootable: 'true', size: 2 });
    const id = created.body.volume.id;
    await status(id, 'available');
    const boot = await cinder.call('compute', 'POST', '/servers', {
      server: { name: 'bfv', imageRef: '', flavorRef: '1', networks: [{ uuid: PUBLIC_NETWORK_ID }], block_device_mapping_v2: [{ uuid: id, source_type: 'volume', destination_type: 'volume', boot_index: 0, delete_on_termination: false }] },
    }, { 'X-OpenStack-Nova-API-Version': '2.96' });
    expect(boot.status).toBe(202);
    const serverId = boot.body.server.id;
    const volume = (await call('GET', `/volumes/${id}`)).body.volume;
    expect(volume).toMatchObject({ status: 'in-use', attachments: [expect.objectContaining({ server_id: serverId, device: '/dev/vda' })], volume_image_metadata: expect.objectContaining({ os_distro: 'ubuntu' }) });
    const server = (await cinder.until('compute', `/servers/${serverId}`, (b) => b.server.status === 'ACTIVE', 10_000, { 'X-OpenStack-Nova-API-Version': '2.96' })).server;
    expect(server.image).toBe('');
    expect(server['os-extended-volumes:volumes_attached']).toEqual([{ id, delete_on_termination: false }]);
    expect((await call('DELETE', `/volumes/${id}`)).body.badRequest.message).toContain('Invalid volume: Volume status must be available');
    await cinder.call('compute', 'DELETE', `/servers/${serverId}`);
    await cinder.until('compute', `/servers/${serverId}`, () => false);
    expect((await call('GET', `/volumes/${id}`)).body.volume).toMatchObject({ status: 'available', attachments: [] });
    expect((await call('DELETE', `/volumes/${id}`)).status).toBe(202);
    // deleting, unless the delay (VIMSIM_DELAY_MS) passed before this GET, as it can on a loaded machine
    const right = await call('GET', `/volumes/${id}`);
    if (right.status !== 404) expect(right.body.volume.status).toBe('deleting');
    expect(await cinder.until('volume', `/volumes/${id}`, () => false)).toBeUndefined();
    expect((await call('GET', `/volumes/${id}`)).body).toEqual({ itemNotFound: { code: 404, message: `Volume ${id} could not be found.` } });
  });

  it('volume types: an admin makes one with extra specs; multiattach "<is> True" makes its volumes multi-attachable; in use it cannot go', async () => {
    const type = (await call('POST', '/types', { volume_type: { name: 'multi', description: null, 'os-volume-type-access:is_public': true } })).body.volume_type;
    expect(type).toMatchObject({ name: 'multi', is_public: true, extra_specs: {} });
    expect((await call('POST', `/types/${type.id}/extra_specs`, { extra_specs: { multiattach: '<is> True' } })).body.extra_specs).toEqual({ multiattach: '<is> True' });
    expect((await call('POST', '/types', { volume_type: { name: 'multi' } })).status).toBe(409);
    const vol = (await call('POST', '/volumes', { volume: { size: 1, volume_type: type.id } })).body.volume;
    expect(vol).toMatchObject({ volume_type: 'multi', multiattach: true });
    expect((await call('DELETE', `/types/${type.id}`)).body.badRequest.message).toBe('Target volume type is still in use.');
    await status(vol.id, 'available');
    await call('DELETE', `/volumes/${vol.id}`);
    await cinder.until('volume', `/volumes/${vol.id}`, () => false);
    expect((await call('DELETE', `/types/${type.id}`)).status).toBe(202);
    expect((await call('GET', '/types/default')).body.volume_type.name).toBe('__DEFAULT__');
  });

  it('extends, sets metadata, lists with detail; refuses what Cinder refuses', async () => {
    const id = (await call('POST', '/volumes', { volume: { size: 1, name: 'data' } })).body.volume.id;
    await status(id, 'available');
    expect((await call('POST', `/volumes/${id}/action`, { 'os-extend': { new_size: 3 } })).status).toBe(202);
    expect((await status(id, 'available')).volume.size).toBe(3);
    expect((await call('POST', `/volumes/${id}/metadata`, { metadata: { k: 'v' } })).body.metadata).toEqual({ k: 'v' });
    expect((await call('GET', '/volumes/detail?name=data')).body.volumes.map((v: any) => v.id)).toEqual([id]);
    expect((await call('POST', '/volumes', { volume: { name: 'nosize' } })).status).toBe(400);
    expect((await call('POST', '/volumes', { volume: { size: 1, volume_type: 'gold' } })).status).toBe(404);
    expect((await call('POST', `/volumes/${id}/action`, { 'os-frobnicate': {} })).status).toBe(400);
    await call('DELETE', `/volumes/${id}`);
  });
});
