/**
 * Injected cloud faults as an operator sees them through a real Heat: a
 * server that ends in ERROR (create, delete, rebuild), one that hangs in
 * BUILD or deleting until the fault is removed, a port Neutron refuses, a
 * volume in error. Each with the status_reason Heat reports.
 */
import type { VimSim } from '@nfv-orchestrator/vimsim/server';
import { admin, CloudClient, embeddedCloud, HeatTestClient, regionFor, startTestSim } from '../support/vimsim-helpers';

const run = Math.random().toString(36).slice(2, 7);

const template = (extra: Record<string, unknown> = {}) => ({
  heat_template_version: '2018-08-31',
  parameters: { image: { type: 'string', default: 'ubuntu-20.04' } },
  resources: {
    cp: { type: 'OS::Neutron::Port', properties: { network: 'public' } },
    vdu: { type: 'OS::Nova::Server', properties: { flavor: 'm1.tiny', image: { get_param: 'image' }, networks: [{ port: { get_resource: 'cp' } }] } },
    ...extra,
  },
});

describe('vimsim faults through real Heat', () => {
  let sim: VimSim;
  let heat: HeatTestClient;
  let cloud: CloudClient;
  let simRegion: { region: string; remove: () => Promise<void> } | undefined;
  const stacks: string[] = [];
  const name = (base: string) => {
    const n = `${base}-${run}`;
    stacks.push(n);
    return n;
  };
  const fault = async (spec: Record<string, unknown>) => {
    const res = await admin(sim, 'POST', '/faults', spec);
    expect(res.status).toBe(201);
    return res.body;
  };
  /** Polls until the stack has left `status`, for at most 150 s (Heat's unscaled retries alone take 62 s). */
  const leaves = async (stack: string, status: string) => {
    for (const deadline = Date.now() + 150_000; Date.now() < deadline;) {
      const s = await heat.stack(stack);
      if (s && s.stack_status !== status) return s;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${stack} stayed ${status}`);
  };
  const vduReason = async (stack: string) => (await heat.resources(stack, 1)).find((r) => r.resource_name === 'vdu').resource_status_reason;
  const serverOf = async (stack: string) => (await admin(sim, 'GET', '/servers')).body.find((s: any) => s.name.startsWith(`${stack}-vdu-`));

  beforeAll(async () => {
    sim = await startTestSim({ delayMs: 30 });
    simRegion = await regionFor(embeddedCloud(), sim.url);
    heat = await HeatTestClient.connect(embeddedCloud(), simRegion.region);
    cloud = await CloudClient.connect(sim);
  });
  afterEach(async () => {
    await admin(sim, 'DELETE', '/faults');
  });
  afterAll(async () => {
    for (const s of stacks) await heat.deleteStack(s).catch(() => undefined);
    await simRegion?.remove();
    await sim?.close();
  });

  // Heat retries a failed create (action_retry_limit 5, backoff 2+4+8+16+32 s, not scaled down):
  // a create fault must hit six times to fail the resource, so these stacks run side by side.
  it('create faults: a server in ERROR, a port Neutron refuses, a volume in error; after Heat\'s 5 retries, CREATE_FAILED', async () => {
    const stacks = { server: name('sf'), custom: name('sf-custom'), port: name('pf'), portCode: name('pf-code'), volume: name('vf') };
    const faults = {
      server: await fault({ target: 'server', operation: 'create', mode: 'fail', match: `${stacks.server}-vdu-`, times: 10 }),
      custom: await fault({ target: 'server', operation: 'create', mode: 'fail', match: `/^${stacks.custom}-vdu-/`, message: 'Exceeded maximum number of retries.', code: 503, times: 6 }),
      port: await fault({ target: 'port', operation: 'create', mode: 'fail', match: `${stacks.port}-cp-`, times: 6 }),
      portCode: await fault({ target: 'port', operation: 'create', mode: 'fail', match: `${stacks.portCode}-cp-`, code: 400, message: 'Invalid input for operation: simulated.', times: 6 }), // a 400 is not retried
      volume: await fault({ target: 'volume', operation: 'create', mode: 'fail', match: `${stacks.volume}-vol-`, times: 6 }),
    };
    expect(faults.server).toMatchObject({ id: expect.any(String), remaining: 10, times: 10, used: 0 });
    const volumeTemplate = { heat_template_version: '2018-08-31', resources: { vol: { type: 'OS::Cinder::Volume', properties: { size: 1 } } } };
    const ids: Record<string, string> = {};
    for (const [k, stack] of Object.entries(stacks)) ids[k] = (await heat.createStack({ stack_name: stack, template: k === 'volume' ? volumeTemplate : template() })).id;
    const ended = Object.fromEntries(await Promise.all(Object.entries(stacks).map(async ([k, stack]) => [k, await leaves(stack, 'CREATE_IN_PROGRESS')] as const)));
    for (const s of Object.values(ended)) expect(s.stack_status).toBe('CREATE_FAILED');
    expect(ended.server.stack_status_reason).toBe(
      'Resource CREATE failed: ResourceInError: resources.vdu: Went to status ERROR due to "Message: No valid host was found. There are not enough hosts available., Code: 500"',
    );
    expect(ended.custom.stack_status_reason).toBe('Resource CREATE failed: ResourceInError: resources.vdu: Went to status ERROR due to "Message: Exceeded maximum number of retries., Code: 503"');
    expect(ended.port.stack_status_reason).toMatch(
      /^Resource CREATE failed: IpAddressGenerationFailureClient: resources\.cp: No more IP addresses available on network f0c82461-36b5-4d86-8322-b0bc19cda65f\.\nNeutron server returns request_ids: \['req-[0-9a-f-]+'\]$/,
    );
    expect(ended.portCode.stack_status_reason).toMatch(/^Resource CREATE failed: BadRequest: resources\.cp: Invalid input for operation: simulated\.\nNeutron server returns request_ids: /);
    expect(ended.volume.stack_status_reason).toBe('Resource CREATE failed: ResourceInError: resources.vol: Went to status error due to "Unknown"');
    const used = Object.fromEntries((await admin(sim, 'GET', '/faults')).body.faults.map((f: any) => [f.id, f.used]));
    expect(Object.fromEntries(Object.entries(faults).map(([k, f]) => [k, used[f.id]]))).toEqual({ server: 6, custom: 6, port: 6, portCode: 1, volume: 6 });

    const failedServer = (await cloud.call('compute', 'GET', `/servers/${(await serverOf(stacks.server)).id}`)).body.server;
    expect(failedServer).toMatchObject({ status: 'ERROR', fault: { code: 500, message: 'No valid host was found. There are not enough hosts available.' } });
    await admin(sim, 'DELETE', `/faults/${faults.server.id}`);
    await heat.update(`${stacks.server}/${ids.server}`, {}, 'PATCH'); // Heat replaces the failed server
    expect((await serverOf(stacks.server)).status).toBe('ACTIVE');
  }, 200_000);

  it('server create hang: BUILD until the fault is removed, then ACTIVE and CREATE_COMPLETE', async () => {
    const stack = name('create-hang');
    const f = await fault({ target: 'server', operation: 'create', mode: 'hang', match: stack });
    await heat.createStack({ stack_name: stack, template: template() });
    for (let i = 0; i < 100 && !(await serverOf(stack)); i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500)); // well past the simulator's delay
    expect((await serverOf(stack)).status).toBe('BUILD');
    expect((await heat.stack(stack)).stack_status).toBe('CREATE_IN_PROGRESS');
    expect((await admin(sim, 'DELETE', `/faults/${f.id}`)).status).toBe(204);
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    expect((await serverOf(stack)).status).toBe('ACTIVE');
  });

  it('server delete fail: ERROR and DELETE_FAILED; deleting again (fault used up) succeeds', async () => {
    const stack = name('delete-fail');
    const { id } = await heat.createStack({ stack_name: stack, template: template() });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    const serverName = (await serverOf(stack)).name;
    await fault({ target: 'server', operation: 'delete', mode: 'fail', match: stack });
    await heat.call('DELETE', `stacks/${stack}/${id}`);
    const failed = await leaves(`${stack}/${id}`, 'DELETE_IN_PROGRESS');
    expect(failed.stack_status).toBe('DELETE_FAILED');
    expect(failed.stack_status_reason).toBe(
      `Resource DELETE failed: ResourceInError: resources.vdu: Went to status ERROR due to "Server ${serverName} delete failed: (500) Failed to delete the instance."`,
    );
    await heat.deleteStack(stack);
    expect(await serverOf(stack)).toBeUndefined();
  });

  it('server delete hang: deleting until the fault is removed', async () => {
    const stack = name('delete-hang');
    const { id } = await heat.createStack({ stack_name: stack, template: template() });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    const f = await fault({ target: 'server', operation: 'delete', mode: 'hang', match: stack });
    await heat.call('DELETE', `stacks/${stack}/${id}`);
    for (let i = 0; i < 100 && (await serverOf(stack)).taskState !== 'deleting'; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    expect((await serverOf(stack)).taskState).toBe('deleting');
    expect((await heat.stack(`${stack}/${id}`)).stack_status).toBe('DELETE_IN_PROGRESS');
    await admin(sim, 'DELETE', `/faults/${f.id}`);
    await heat.waitFor(`${stack}/${id}`, ['DELETE_COMPLETE']);
  });

  it('server rebuild fail: an image update ends UPDATE_FAILED', async () => {
    const stack = name('rebuild-fail');
    const { id } = await heat.createStack({ stack_name: stack, template: template() });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    await fault({ target: 'server', operation: 'rebuild', mode: 'fail', match: stack });
    await expect(heat.update(`${stack}/${id}`, { parameters: { image: 'ubuntu-22.04' } }, 'PATCH')).rejects.toThrow(
      "is UPDATE_FAILED: Resource UPDATE failed: Error: resources.vdu: Rebuilding server failed, status 'ERROR'",
    );
    expect((await serverOf(stack)).status).toBe('ERROR');
  });

  it('volume delete fail: error_deleting and DELETE_FAILED as Heat reports it', async () => {
    const stack = name('volume-delete');
    const { id } = await heat.createStack({ stack_name: stack, template: { heat_template_version: '2018-08-31', resources: { vol: { type: 'OS::Cinder::Volume', properties: { size: 1 } } } } });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    await fault({ target: 'volume', operation: 'delete', mode: 'fail', match: `${stack}-vol-` });
    await heat.call('DELETE', `stacks/${stack}/${id}`);
    const failed = await leaves(`${stack}/${id}`, 'DELETE_IN_PROGRESS');
    expect(failed.stack_status_reason).toBe('Resource DELETE failed: ResourceInError: resources.vol: Went to status error_deleting due to "delete"');
    await heat.deleteStack(stack);
  });

  it('the fault API: list, remaining, times, delete one or all; bad specs are 400', async () => {
    const f = await fault({ target: 'volume', operation: 'create', mode: 'hang', times: 3, match: 'never-used' });
    expect(f).toMatchObject({ remaining: 3, used: 0, mode: 'hang' });
    expect((await admin(sim, 'GET', '/faults')).body.faults).toHaveLength(1);
    for (const bad of [{}, { target: 'port', operation: 'create', mode: 'hang' }, { target: 'volume', operation: 'rebuild', mode: 'fail' }, { target: 'server', operation: 'create', mode: 'fail', match: '/[/' }, { target: 'server', operation: 'create', mode: 'fail', extra: 1 }]) {
      expect((await admin(sim, 'POST', '/faults', bad)).status).toBe(400);
    }
    expect((await admin(sim, 'DELETE', '/faults/nope')).status).toBe(404);
    expect((await admin(sim, 'DELETE', `/faults/${f.id}`)).status).toBe(204);
    expect((await admin(sim, 'GET', '/faults')).body.faults).toEqual([]);
  });
});
