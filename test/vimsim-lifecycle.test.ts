/**
 * Operation lifecycle: injected failures and hangs, cancel, delete while
 * hung, update semantics (PATCH/PUT, 409 while in progress), ResourceGroups,
 * a restart on the same data dir while an operation is in progress, and a
 * state that cannot be saved for a while.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { VimSim } from '../vimsim/server';
import { admin, HeatTestClient, holdingStack, startTestSim, tempDataDir } from './vimsim-helpers';

const TEMPLATE = {
  heat_template_version: '2018-08-31',
  parameters: {
    image: { type: 'string', default: 'cirros' },
    flavor: { type: 'string' },
    count: { type: 'number', default: 2 },
  },
  resources: {
    net: { type: 'OS::Neutron::Net' },
    subnet: { type: 'OS::Neutron::Subnet', properties: { network: { get_resource: 'net' }, cidr: '10.10.0.0/24' } },
    port: { type: 'OS::Neutron::Port', properties: { network: { get_resource: 'net' } } },
    server: {
      type: 'OS::Nova::Server',
      properties: { image: { get_param: 'image' }, flavor: { get_param: 'flavor' }, networks: [{ port: { get_resource: 'port' } }] },
    },
    group: {
      type: 'OS::Heat::ResourceGroup',
      properties: {
        count: { get_param: 'count' },
        resource_def: { type: 'OS::Nova::Server', properties: { name: 'member-%index%', flavor: { get_param: 'flavor' }, networks: [{ network: { get_resource: 'net' } }] } },
      },
      depends_on: 'subnet',
    },
  },
  outputs: {
    server_ip: { value: { get_attr: ['server', 'first_address'] }, description: 'address of the server' },
    member_names: { value: { get_attr: ['group', 'refs'] } },
  },
};

function body(name: string, parameters: Record<string, unknown> = { flavor: 'm1.tiny' }) {
  return { stack_name: name, template: TEMPLATE, parameters };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('vimsim lifecycle', () => {
  let sim: VimSim;
  let heat: HeatTestClient;

  beforeAll(async () => {
    sim = await startTestSim({ delayMs: 30 });
    heat = await HeatTestClient.connect(sim);
  });
  afterAll(async () => {
    await sim.close();
  });
  afterEach(async () => {
    await admin(sim, 'DELETE', '/faults');
  });

  it('creates, reads outputs and ResourceGroup members', async () => {
    await heat.createStack(body('life-basic'));
    const stack = await heat.waitFor('life-basic', ['CREATE_COMPLETE']);
    expect(stack.outputs.find((o: any) => o.output_key === 'server_ip').output_value).toMatch(/^10\.10\.0\./);
    expect(stack.outputs.find((o: any) => o.output_key === 'server_ip').description).toBe('address of the server');
    const resources = await heat.resources('life-basic');
    const members = resources.filter((r) => r.parent_resource === 'group');
    expect(members.map((m) => m.resource_name)).toEqual(['0', '1']);
    const member = await heat.resource(holdingStack(members[1]), '1');
    expect(member.attributes.name).toBe('member-1');
    expect(member.attributes.first_address).toMatch(/^10\.10\.0\./);

    // Count down by PATCH: parameters are merged, the highest index goes.
    expect((await heat.call('PATCH', 'stacks/life-basic', { parameters: { count: 1 } })).status).toBe(202);
    const updated = await heat.waitFor('life-basic', ['UPDATE_COMPLETE']);
    expect(updated.parameters.flavor).toBe('m1.tiny');
    expect(updated.parameters.count).toBe('1');
    const after = (await heat.resources('life-basic')).filter((r) => r.parent_resource === 'group');
    expect(after.map((m) => m.resource_name)).toEqual(['0']);
    expect(after[0].physical_resource_id).toBe(members[0].physical_resource_id);

    const events = await heat.call('GET', `stacks/life-basic/events?nested_depth=1&resource_name=server`);
    expect(events.body.events.map((e: any) => e.resource_status)).toEqual(['CREATE_IN_PROGRESS', 'CREATE_COMPLETE']);
  });

  it('PUT replaces parameters and requires a template', async () => {
    await heat.createStack(body('life-put', { flavor: 'm1.tiny', image: 'custom' }));
    const { id } = await heat.waitFor('life-put', ['CREATE_COMPLETE']);
    expect((await heat.call('PUT', `stacks/life-put/${id}`, { parameters: { flavor: 'm1.small' } })).status).toBe(400);
    expect((await heat.call('PUT', `stacks/life-put/${id}`, { template: TEMPLATE, parameters: { flavor: 'm1.small' } })).status).toBe(202);
    const stack = await heat.waitFor('life-put', ['UPDATE_COMPLETE']);
    expect(stack.parameters.image).toBe('cirros'); // back to the default
    const server = await heat.resource(`life-put/${id}`, 'server');
    expect(server.attributes.flavor).toBe('m1.small');
  });

  it('fails a create with an injected fault, then repairs it with an update', async () => {
    const fault = await admin(sim, 'POST', '/faults', { operation: 'create', stackName: 'fail-me', mode: 'fail', reason: 'No valid host was found.' });
    expect(fault.status).toBe(201);
    expect(fault.body.id).toBeTruthy();

    await heat.createStack(body('vnf-fail-me-1'));
    const failed = await heat.waitFor('vnf-fail-me-1', ['CREATE_FAILED', 'CREATE_COMPLETE']);
    expect(failed.stack_status).toBe('CREATE_FAILED');
    expect(failed.stack_status_reason).toBe('Resource CREATE failed: No valid host was found.');
    const resources = await heat.resources('vnf-fail-me-1');
    const failedResources = resources.filter((r) => r.resource_status === 'CREATE_FAILED');
    expect(failedResources.length).toBeGreaterThan(0);
    expect(failedResources.some((r) => r.resource_type === 'OS::Nova::Server')).toBe(true);

    // The fault is used up: the next matching create succeeds.
    expect((await admin(sim, 'GET', '/faults')).body.faults[0].remaining).toBe(0);
    await heat.createStack(body('vnf-fail-me-2'));
    await heat.waitFor('vnf-fail-me-2', ['CREATE_COMPLETE']);

    // Updating the failed stack replaces the failed server.
    const victim = failedResources.find((r) => r.resource_type === 'OS::Nova::Server');
    expect((await heat.call('PATCH', 'stacks/vnf-fail-me-1', {})).status).toBe(202);
    await heat.waitFor('vnf-fail-me-1', ['UPDATE_COMPLETE']);
    const repaired = (await heat.resources('vnf-fail-me-1')).find(
      (r) => r.resource_name === victim.resource_name && r.parent_resource === victim.parent_resource,
    );
    expect(repaired.physical_resource_id).not.toBe(victim.physical_resource_id);
    expect(repaired.resource_status).toBe('CREATE_COMPLETE');
  });

  it('hangs a create until cancel_without_rollback', async () => {
    await admin(sim, 'POST', '/faults', { operation: 'create', stackName: 'life-hang', mode: 'hang' });
    const { id } = await heat.createStack(body('life-hang'));
    await sleep(120);
    expect((await heat.stack('life-hang')).stack_status).toBe('CREATE_IN_PROGRESS');
    expect((await heat.call('PATCH', 'stacks/life-hang', {})).status).toBe(409);

    const cancel = await heat.call('POST', `stacks/life-hang/${id}/actions`, { cancel_without_rollback: null });
    expect(cancel.status).toBe(200);
    const stack = await heat.stack('life-hang');
    expect(stack.stack_status).toBe('CREATE_FAILED');
    expect(stack.stack_status_reason).toBe('Stack CREATE cancelled');
    expect((await heat.call('POST', `stacks/life-hang/${id}/actions`, { cancel_update: null })).status).toBe(400);
  });

  it('hangs an update until the fault is removed, and cancel_update fails it', async () => {
    await heat.createStack(body('life-upd'));
    const { id } = await heat.waitFor('life-upd', ['CREATE_COMPLETE']);

    const fault = await admin(sim, 'POST', '/faults', { operation: 'update', stackName: 'life-upd', mode: 'hang', times: 2 });
    await heat.call('PATCH', `stacks/life-upd/${id}`, { parameters: { image: 'v2' } });
    await sleep(100);
    expect((await heat.stack('life-upd')).stack_status).toBe('UPDATE_IN_PROGRESS');
    await admin(sim, 'DELETE', `/faults/${fault.body.id}`);
    await heat.waitFor('life-upd', ['UPDATE_COMPLETE']);

    await admin(sim, 'POST', '/faults', { operation: 'update', stackName: 'life-upd', mode: 'hang' });
    await heat.call('PATCH', `stacks/life-upd/${id}`, { parameters: { image: 'v3' } });
    await heat.call('POST', `stacks/life-upd/${id}/actions`, { cancel_update: null });
    const cancelled = await heat.stack('life-upd');
    expect(cancelled.stack_status).toBe('UPDATE_FAILED');
    expect(cancelled.stack_status_reason).toBe('Stack UPDATE cancelled');
  });

  it('deletes a hung stack, and reports an injected delete failure', async () => {
    await admin(sim, 'POST', '/faults', { operation: 'create', stackName: 'life-delhang', mode: 'hang' });
    const { id } = await heat.createStack(body('life-delhang'));
    expect((await heat.call('DELETE', `stacks/life-delhang/${id}`)).status).toBe(204);
    await heat.waitFor(id, ['DELETE_COMPLETE']);

    await heat.createStack(body('life-delfail'));
    const created = await heat.waitFor('life-delfail', ['CREATE_COMPLETE']);
    await admin(sim, 'POST', '/faults', { operation: 'delete', stackName: 'life-delfail', mode: 'fail', reason: 'volume busy' });
    await heat.call('DELETE', 'stacks/life-delfail');
    const failed = await heat.waitFor('life-delfail', ['DELETE_FAILED']);
    expect(failed.stack_status_reason).toBe('Resource DELETE failed: volume busy');
    // Retrying the delete works.
    expect((await heat.call('DELETE', `stacks/life-delfail/${created.id}`)).status).toBe(204);
    await heat.waitFor(created.id, ['DELETE_COMPLETE']);
  });

  it('applies a runtime delay change', async () => {
    expect((await admin(sim, 'POST', '/config', { delayMs: 0 })).body.delayMs).toBe(0);
    await heat.createStack(body('life-fast'));
    await heat.waitFor('life-fast', ['CREATE_COMPLETE'], 1000);
    await admin(sim, 'POST', '/config', { delayMs: 30 });
    expect((await admin(sim, 'POST', '/config', { delayMs: -1 })).status).toBe(400);
  });
});

describe('vimsim restart', () => {
  it('completes an operation that was in progress when the simulator stopped', async () => {
    const dataDir = tempDataDir();
    const first = await startTestSim({ dataDir, delayMs: 400 });
    const heat1 = await HeatTestClient.connect(first);
    const { id } = await heat1.createStack(body('life-restart'));
    const before = await heat1.resources('life-restart');
    expect((await heat1.stack('life-restart')).stack_status).toBe('CREATE_IN_PROGRESS');
    await first.close();

    const second = await startTestSim({ dataDir, delayMs: 30 });
    try {
      const heat2 = await HeatTestClient.connect(second);
      expect(heat2.heatUrl.split('/').pop()).toBe(heat1.heatUrl.split('/').pop()); // same project id
      const stack = await heat2.waitFor(`life-restart/${id}`, ['CREATE_COMPLETE'], 3000);
      expect(stack.stack_status_reason).toBe('Stack CREATE completed successfully');
      const after = await heat2.resources('life-restart');
      expect(after.map((r) => r.physical_resource_id).sort()).toEqual(before.map((r) => r.physical_resource_id).sort());

      // Tokens survive the restart too, and a hang fault still holds after one.
      await admin(second, 'POST', '/faults', { operation: 'delete', mode: 'hang' });
      expect((await heat2.call('DELETE', `stacks/life-restart/${id}`)).status).toBe(204);
    } finally {
      await second.close();
    }

    const third = await startTestSim({ dataDir, delayMs: 30 });
    try {
      const heat3 = await HeatTestClient.connect(third);
      await sleep(80);
      expect((await heat3.stack(id)).stack_status).toBe('DELETE_IN_PROGRESS');
      await admin(third, 'DELETE', '/faults');
      await heat3.waitFor(id, ['DELETE_COMPLETE']);
      const network = (await admin(third, 'GET', '/network')).body;
      expect(Object.keys(network.ports)).toHaveLength(0);
      expect(Object.keys(network.networks)).toHaveLength(0);
    } finally {
      await third.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('vimsim storage failure', () => {
  it('keeps an operation IN_PROGRESS while its end cannot be saved, and ends it once it can', async () => {
    const dataDir = tempDataDir();
    const sim = await startTestSim({ dataDir, delayMs: 300 });
    // A second connection refuses every event insert, as a full disk would.
    const other = new Database(path.join(dataDir, 'vimsim', 'state.db'));
    try {
      const heat = await HeatTestClient.connect(sim);
      const { id } = await heat.createStack(body('life-disk-full'));
      other.exec("CREATE TRIGGER refuse_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk full'); END");
      await sleep(900); // the end was due at 300 ms and has failed at least once
      expect((await heat.stack(`life-disk-full/${id}`)).stack_status).toBe('CREATE_IN_PROGRESS');

      other.exec('DROP TRIGGER refuse_events');
      await heat.waitFor(`life-disk-full/${id}`, ['CREATE_COMPLETE'], 3000);
      const events = (await heat.call('GET', `stacks/life-disk-full/${id}/events`)).body.events
        .filter((e: any) => e.resource_name === 'life-disk-full');
      expect(events.map((e: any) => e.resource_status)).toEqual(['CREATE_IN_PROGRESS', 'CREATE_COMPLETE']);
      const saved = other.prepare('SELECT json FROM trees WHERE root_id = ?').get(id) as { json: string };
      expect(JSON.parse(saved.json).find((s: any) => s.id === id).status).toBe('COMPLETE');
    } finally {
      other.close();
      await sim.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
