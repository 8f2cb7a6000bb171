/**
 * Hostile and broken requests get a clear 4xx from every service and the
 * admin API, never a 5xx or a crash: malformed and huge bodies, wrong types,
 * missing envelopes, deep nesting, absurd query parameters, odd paths and
 * methods, a name filter built to backtrack forever.
 */
import { PUBLIC_NETWORK_ID, seedImageId } from '@nfv-orchestrator/vimsim/store/seed';
import { admin, CloudClient, embeddedCloud, http, login, startTestSim, type TestSim } from '../support/vimsim-helpers';

describe('vimsim hostile input', () => {
  let sim: TestSim;
  let cloud: CloudClient;
  let base: Record<string, string>;
  const raw = (method: string, url: string, body: string | Buffer | undefined, type = 'application/json', headers: Record<string, string> = {}) =>
    http(method, url, body, { 'X-Auth-Token': cloud.session.token, 'Content-Type': type, Accept: 'application/json', ...headers });

  beforeAll(async () => {
    sim = await startTestSim();
    cloud = await CloudClient.connect(sim);
    base = {
      compute: `${sim.url}/compute/v2.1`,
      network: `${sim.url}/network/v2.0`,
      image: `${sim.url}/image/v2`,
      volume: `${sim.url}/volume/v3/${cloud.session.projectId}`,
    };
  });
  afterAll(async () => {
    await sim?.close();
  });

  const creates: [string, string][] = [
    ['compute', '/servers'],
    ['compute', '/os-keypairs'],
    ['network', '/networks'],
    ['network', '/subnets'],
    ['network', '/ports'],
    ['network', '/security-groups'],
    ['network', '/security-group-rules'],
    ['image', '/images'],
    ['volume', '/volumes'],
  ];

  it('malformed JSON, a JSON array or scalar, an empty or wrong envelope: 400', async () => {
    for (const [service, p] of creates) {
      // Glance takes {} (an image with no attributes yet); everything else needs its envelope.
      const bodies = ['{not json', '[]', '"x"', '42', 'null', '{"wrong": {}}', '{"server": "x", "network": [1], "port": null}', ...(service === 'image' ? [] : ['{}'])];
      for (const body of bodies) {
        const res = await raw('POST', `${base[service]}${p}`, body);
        expect([service, p, body, res.status]).toEqual([service, p, body, expect.any(Number)]);
        expect(res.status >= 400 && res.status < 500 ? 'client error' : `${res.status} ${JSON.stringify(res.body)}`).toBe('client error');
      }
    }
  });

  it('bodies over the limit: 413', async () => {
    const huge = JSON.stringify({ server: { name: 'x', user_data: 'A'.repeat(2_000_000) } });
    for (const [service, p] of creates) expect([p, (await raw('POST', `${base[service]}${p}`, huge)).status]).toEqual([p, 413]);
  });

  it('wrong types, absurd sizes, deep nesting: 400', async () => {
    const bad = [
      ['compute', '/servers', { server: { name: 123, imageRef: seedImageId('ubuntu-20.04'), flavorRef: '1', networks: 'none' } }],
      ['compute', '/servers', { server: { name: 'x'.repeat(300), imageRef: seedImageId('ubuntu-20.04'), flavorRef: '1', networks: 'none' } }],
      ['compute', '/servers', { server: { name: 'x', imageRef: seedImageId('ubuntu-20.04'), flavorRef: '1', networks: [{ uuid: { $ne: 1 } }] } }],
      ['compute', '/servers', { server: { name: 'x', imageRef: seedImageId('ubuntu-20.04'), flavorRef: '1', networks: 'none', metadata: { a: { b: 1 } } } }],
      ['compute', '/servers', { server: { name: 'x', imageRef: seedImageId('ubuntu-20.04'), flavorRef: '1', networks: 'none', max_count: 1000 } }],
      ['network', '/ports', { port: { network_id: PUBLIC_NETWORK_ID, fixed_ips: [{ ip_address: '999.1.1.1' }] } }],
      ['network', '/ports', { port: { network_id: PUBLIC_NETWORK_ID, fixed_ips: 'all' } }],
      ['network', '/ports', { port: { network_id: PUBLIC_NETWORK_ID, __proto__: { admin: true }, constructor: 1 } }],
      ['network', '/subnets', { subnet: { network_id: PUBLIC_NETWORK_ID, cidr: '10.0.0.0/33' } }],
      ['network', '/subnets', { subnet: { network_id: PUBLIC_NETWORK_ID, cidr: '0.0.0.0/0' } }],
      ['network', '/networks', { network: { name: 'x', mtu: 'big' } }],
      ['image', '/images', { name: 'x', disk_format: 'exe' }],
      ['image', '/images', { name: 'x', id: 'not-a-uuid' }],
      ['volume', '/volumes', { volume: { size: -1 } }],
      ['volume', '/volumes', { volume: { size: 10 ** 9 } }],
    ] as const;
    for (const [service, p, body] of bad) {
      const res = await raw('POST', `${base[service]}${p}`, JSON.stringify(body));
      expect([p, JSON.stringify(body).slice(0, 80), res.status >= 400 && res.status < 500]).toEqual([p, JSON.stringify(body).slice(0, 80), true]);
    }
    let deep = '1';
    for (let i = 0; i < 5000; i++) deep = `[${deep}]`;
    expect((await raw('POST', `${base.network}/ports`, `{"port": ${deep}}`)).status).toBe(400);
  });

  it('absurd query parameters and paths: 4xx; a backtracking name filter answers at once', async () => {
    const gets = [
      `${base.compute}/servers?limit=-1`,
      `${base.compute}/servers?limit=abc`,
      `${base.compute}/servers?marker=nope`,
      `${base.compute}/servers?changes-since=yesterday`,
      `${base.network}/ports?limit=99999999999999999999`,
      `${base.network}/ports?fixed_ips=mac_address%3Dx`,
      `${base.image}/images?marker=nope`,
      `${base.image}/images?limit=x`,
      `${base.volume}/volumes?marker=nope`,
      `${base.compute}/servers/..%2F..%2Fetc%2Fpasswd`,
      `${base.network}/networks/%00`,
      `${base.compute}/nothing/here`,
    ];
    for (const url of gets) {
      const res = await raw('GET', url, undefined);
      expect([url, res.status >= 400 && res.status < 500]).toEqual([url, true]);
    }
    const t0 = Date.now();
    const evil = await raw('GET', `${base.compute}/servers?name=${encodeURIComponent('(a+)+$')}`, undefined);
    expect(evil.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(5000); // a backtracking regex would take far longer; 5 s leaves room for a loaded machine
    for (const method of ['PATCH', 'DELETE', 'PUT']) expect((await raw(method, `${base.compute}/flavors`, '{}')).status).toBe(404);
  });

  it('wrong content types: ignored bodies are 400, Glance patches need theirs (415), uploads to nothing are 404', async () => {
    expect((await raw('POST', `${base.network}/ports`, JSON.stringify({ port: { network_id: PUBLIC_NETWORK_ID } }), 'text/plain')).status).toBe(400);
    const image = (await cloud.call('image', 'POST', '/images', { name: 'h', disk_format: 'raw', container_format: 'bare' })).body;
    expect((await raw('PATCH', `${base.image}/images/${image.id}`, JSON.stringify([{ op: 'replace', path: '/name', value: 'y' }]))).status).toBe(415);
    expect((await raw('PATCH', `${base.image}/images/${image.id}`, '[{"op": "replace", "path": "/status", "value": "active"}]', 'application/openstack-images-v2.1-json-patch')).status).toBe(403);
    expect((await raw('PUT', `${base.image}/images/9b2f0ef8-0000-4000-8000-000000000000/file`, Buffer.alloc(10), 'application/octet-stream')).status).toBe(404);
  });

  it('tokens no Keystone would issue: 401 (431 from Node past 16 KiB of headers)', async () => {
    for (const token of ['x'.repeat(10_000), 'x'.repeat(20_000), 'a b', '\u00e9t\u00e9', 'gAAAA' + '%'.repeat(300)]) {
      const res = await fetch(`${base.compute}/flavors`, { headers: { 'X-Auth-Token': encodeURI(token) === token ? token : Buffer.from(token).toString('latin1') } }).catch((e: Error) => e);
      if (res instanceof Error) continue; // fetch itself refuses some header values
      expect([token.length, res.status]).toEqual([token.length, token.length > 16_000 ? 431 : 401]);
    }
  });

  it('the admin API refuses nonsense with 400/404 and stays up', async () => {
    expect((await admin(sim, 'POST', '/faults', { target: 'server', operation: 'create', mode: 'fail', times: -1 })).status).toBe(400);
    expect((await admin(sim, 'POST', '/faults', { target: 'disk', operation: 'create', mode: 'fail' })).status).toBe(400);
    expect((await admin(sim, 'POST', '/config', { delayMs: -5 })).status).toBe(400);
    expect((await admin(sim, 'POST', '/ssh/faults', { match: '' })).status).toBe(400);
    const asAdmin = { 'Content-Type': 'application/json', 'X-Auth-Token': (await login(embeddedCloud())).token };
    expect((await http('POST', `${sim.url}/sim/faults`, '{oops', asAdmin)).status).toBe(400);
    expect((await http('POST', `${sim.url}/sim/faults`, 'x'.repeat(100_000), asAdmin)).status).toBe(413);
    expect((await admin(sim, 'GET', '/servers/nope/host')).status).toBe(404);
    expect((await admin(sim, 'GET', '/nothing')).status).toBe(404);
    expect((await http('GET', `${sim.url}/healthz`)).status).toBe(200);
    const stats = (await admin(sim, 'GET', '/stats')).body.calls;
    expect(Object.keys(stats).some((k) => k.includes('unrouted'))).toBe(true);
  });
});
