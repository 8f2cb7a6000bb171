/**
 * Real Tacker BaseHOT templates from /work/shared/tacker-samples: the v2
 * userdata sample (template resources, volumes, server groups) and the
 * Kubernetes samples (AutoScalingGroups with template members, get_attr of a
 * VIP port), including scaling and healing through stack updates.
 */
import type { VimSim } from '../vimsim/server';
import { HeatTestClient, holdingStack, readSample, startTestSim } from './vimsim-helpers';

const EXT_NET = 'aa9f8e9b-9c1e-4c2a-8f3e-0c8b1d2e3f40';
const EXT_SUBNET = 'bb9f8e9b-9c1e-4c2a-8f3e-0c8b1d2e3f41';

function sample3Body(name: string, image = 'cirros-0.5.2') {
  return {
    stack_name: name,
    template: readSample('v2_userdata_standard/BaseHOT/simple/sample3.yaml'),
    files: {
      'VDU1.yaml': readSample('v2_userdata_standard/BaseHOT/simple/nested/VDU1.yaml'),
      'VDU2.yaml': readSample('v2_userdata_standard/BaseHOT/simple/nested/VDU2.yaml'),
    },
    parameters: {
      nfv: {
        VDU: {
          // Tacker leaves locationConstraints null when no zone is granted.
          VDU1: { computeFlavourId: 'm1.tiny', vcImageId: image, locationConstraints: null, name: 'VDU1' },
          VDU2: { computeFlavourId: 'm1.small' },
          'VDU2-VirtualStorage': { vcImageId: 'volume-image' },
        },
        CP: {
          VDU1_CP1: { network: EXT_NET },
          VDU2_CP1: { network: EXT_NET, fixed_ips: [{ subnet: EXT_SUBNET }] },
        },
      },
    },
    timeout_mins: 10,
  };
}

const K8S = 'kubernetes_vnf_package/BaseHOT';

function k8sBody(name: string, variant: 'simple' | 'complex', template?: string) {
  return {
    stack_name: name,
    template: template ?? readSample(`${K8S}/${variant}/${variant}_hot_top.yaml`),
    files: {
      [`${variant}_nested_master.yaml`]: readSample(`${K8S}/${variant}/nested/${variant}_nested_master.yaml`),
      [`${variant}_nested_worker.yaml`]: readSample(`${K8S}/${variant}/nested/${variant}_nested_worker.yaml`),
    },
    parameters: {
      nfv: {
        VDU: { masterNode: { flavor: 'm1.medium', image: 'ubuntu-k8s' }, workerNode: { flavor: 'm1.large', image: 'ubuntu-k8s' } },
        CP: { masterNode_CP1: { network: EXT_NET }, workerNode_CP2: { network: EXT_NET } },
      },
    },
  };
}

describe('vimsim with Tacker samples', () => {
  let sim: VimSim;
  let heat: HeatTestClient;

  beforeAll(async () => {
    sim = await startTestSim({ delayMs: 20 });
    heat = await HeatTestClient.connect(sim);
  });
  afterAll(async () => {
    await sim.close();
  });

  describe('v2_userdata_standard sample3', () => {
    it('creates the VNF with nested VDU templates, volumes and internal networks', async () => {
      await heat.createStack(sample3Body('vnf-sample3'));
      await heat.waitFor('vnf-sample3', ['CREATE_COMPLETE']);
      const resources = await heat.resources('vnf-sample3');
      const byName = (n: string) => resources.filter((r) => r.resource_name === n);

      expect(byName('VDU1')).toHaveLength(2); // the template resource and the server inside it
      const vdu1Server = byName('VDU1').find((r) => r.resource_type === 'OS::Nova::Server');
      expect(vdu1Server.parent_resource).toBe('VDU1');
      const vdu2Server = byName('VDU2').find((r) => r.resource_type === 'OS::Nova::Server');
      expect(vdu2Server.parent_resource).toBe('VDU2');
      expect(byName('VDU2-VirtualStorage')[0].resource_type).toBe('OS::Cinder::Volume');

      const volumeType = await heat.resource(holdingStack(byName('multi')[0]), 'multi');
      expect(volumeType.attributes.name).toBe(`${holdingStack(byName('multi')[0]).split('/')[0]}-VDU2-multi`);

      const cp2 = await heat.resource(holdingStack(byName('VDU1_CP2')[0]), 'VDU1_CP2');
      expect(cp2.attributes.fixed_ips[0].ip_address).toMatch(/^192\.168\.3\./);
      const cp3 = await heat.resource(holdingStack(byName('VDU2_CP3')[0]), 'VDU2_CP3');
      expect(cp3.attributes.fixed_ips[0].ip_address).toMatch(/^192\.168\.4\./);
      const vdu2cp1 = await heat.resource(holdingStack(byName('VDU2_CP1')[0]), 'VDU2_CP1');
      expect(vdu2cp1.attributes.fixed_ips[0]).toEqual({ ip_address: expect.stringMatching(/^127\.20\./), subnet_id: EXT_SUBNET });

      const server = await heat.resource(holdingStack(vdu1Server), 'VDU1');
      expect(server.attributes.image).toBe('cirros-0.5.2');
      expect(server.attributes.show['OS-EXT-AZ:availability_zone']).toBe('nova');
      expect(server.required_by).toEqual([]);
      const net = byName('internalVL1')[0];
      expect(net.required_by.sort()).toEqual(['VDU1', 'VDU2', 'internalVL1_subnet']);
    });

    it('heals a marked-unhealthy server on the next top-level update, keeping its ports', async () => {
      await heat.createStack(sample3Body('vnf-heal'));
      await heat.waitFor('vnf-heal', ['CREATE_COMPLETE']);
      const before = await heat.resources('vnf-heal');
      const server = before.find((r) => r.resource_name === 'VDU1' && r.resource_type === 'OS::Nova::Server');
      const nestedStack = holdingStack(server);

      const mark = await heat.call('PATCH', `stacks/${nestedStack}/resources/VDU1`, { mark_unhealthy: true, resource_status_reason: 'heal by test' });
      expect(mark.status).toBe(200);
      const marked = await heat.resource(nestedStack, 'VDU1');
      expect(marked.resource_status).toBe('CHECK_FAILED');
      expect(marked.resource_status_reason).toBe('heal by test');

      const update = await heat.call('PATCH', 'stacks/vnf-heal', { existing: true });
      expect(update.status).toBe(202);
      expect((await heat.stack('vnf-heal')).stack_status).toBe('UPDATE_IN_PROGRESS');
      await heat.waitFor('vnf-heal', ['UPDATE_COMPLETE']);

      const after = await heat.resources('vnf-heal');
      const healed = after.find((r) => r.resource_name === 'VDU1' && r.resource_type === 'OS::Nova::Server');
      expect(healed.physical_resource_id).not.toBe(server.physical_resource_id);
      expect(healed.resource_status).toBe('CREATE_COMPLETE');
      expect(holdingStack(healed)).toBe(nestedStack); // same nested stack
      // Everything else kept its identity.
      for (const r of before.filter((x) => x !== server)) {
        const same = after.find((x) => x.resource_name === r.resource_name && x.parent_resource === r.parent_resource);
        expect(same.physical_resource_id).toBe(r.physical_resource_id);
      }
      const port = await heat.resource(nestedStack, 'VDU1_CP1');
      expect(port.attributes.device_id).toBe(healed.physical_resource_id);
      const healedServer = await heat.resource(nestedStack, 'VDU1');
      expect(healedServer.attributes.first_address).toBe(port.attributes.fixed_ips[0].ip_address);
    });

    it('changes the image in place: same server id, new image in the attributes', async () => {
      await heat.createStack(sample3Body('vnf-image'));
      await heat.waitFor('vnf-image', ['CREATE_COMPLETE']);
      const [server] = (await heat.resources('vnf-image')).filter((r) => r.resource_name === 'VDU1' && r.parent_resource);
      const update = await heat.call('PATCH', 'stacks/vnf-image', { parameters: sample3Body('x', 'cirros-new').parameters });
      expect(update.status).toBe(202);
      await heat.waitFor('vnf-image', ['UPDATE_COMPLETE']);
      const after = await heat.resource(holdingStack(server), 'VDU1');
      expect(after.physical_resource_id).toBe(server.physical_resource_id);
      expect(after.resource_status).toBe('UPDATE_COMPLETE');
      expect(after.attributes.image).toBe('cirros-new');
      expect(after.attributes.show.image).toEqual({ id: 'cirros-new' });
      const stack = await heat.stack('vnf-image');
      expect(JSON.parse(stack.parameters.nfv).VDU.VDU1.vcImageId).toBe('cirros-new');
    });
  });

  describe('kubernetes_vnf_package', () => {
    const membersOf = (resources: any[], group: string) =>
      resources.filter((r) => r.parent_resource === group);

    it('creates AutoScalingGroups whose members are nested stacks', async () => {
      await heat.createStack(k8sBody('k8s-simple', 'simple'));
      await heat.waitFor('k8s-simple', ['CREATE_COMPLETE']);
      const resources = await heat.resources('k8s-simple');
      const masters = membersOf(resources, 'master_instance');
      const workers = membersOf(resources, 'worker_instance');
      expect(masters).toHaveLength(1);
      expect(workers).toHaveLength(2);
      for (const member of [...masters, ...workers]) {
        expect(member.resource_name).toMatch(/^[a-z0-9]{12}$/);
        expect(member.resource_status).toBe('CREATE_COMPLETE');
      }
      expect(workers[0].resource_type).toBe('simple_nested_worker.yaml');
      const workerServers = resources.filter((r) => r.resource_name === 'workerNode');
      expect(workerServers.map((s) => s.parent_resource).sort()).toEqual(workers.map((w) => w.resource_name).sort());
      const policy = resources.find((r) => r.resource_name === 'worker_instance_scale_out');
      expect(policy.resource_type).toBe('OS::Heat::ScalingPolicy');
      const asg = await heat.resource('k8s-simple', 'worker_instance');
      expect(asg.attributes.current_size).toBe(2);
    });

    it('scales an AutoScalingGroup out to 3 and in to 1, removing the newest members', async () => {
      const base = readSample(`${K8S}/simple/simple_hot_top.yaml`);
      const withWorkers = (desired: number) =>
        base.replace(/min_size: 2\n(\s+)max_size: 4\n(\s+)desired_capacity: 2/, `min_size: 1\n$1max_size: 4\n$2desired_capacity: ${desired}`);
      expect(withWorkers(2)).not.toBe(base);

      await heat.createStack(k8sBody('k8s-scale', 'simple', withWorkers(2)));
      await heat.waitFor('k8s-scale', ['CREATE_COMPLETE']);
      const initial = membersOf(await heat.resources('k8s-scale'), 'worker_instance');
      expect(initial).toHaveLength(2);

      expect((await heat.call('PATCH', 'stacks/k8s-scale', { template: withWorkers(3) })).status).toBe(202);
      await heat.waitFor('k8s-scale', ['UPDATE_COMPLETE']);
      const scaledOut = membersOf(await heat.resources('k8s-scale'), 'worker_instance');
      expect(scaledOut).toHaveLength(3);
      for (const old of initial) {
        expect(scaledOut.find((m) => m.resource_name === old.resource_name)?.physical_resource_id).toBe(old.physical_resource_id);
      }
      const added = scaledOut.find((m) => !initial.some((o) => o.resource_name === m.resource_name));
      expect(added.resource_status).toBe('CREATE_COMPLETE');

      expect((await heat.call('PATCH', 'stacks/k8s-scale', { template: withWorkers(1) })).status).toBe(202);
      await heat.waitFor('k8s-scale', ['UPDATE_COMPLETE']);
      const resources = await heat.resources('k8s-scale');
      const scaledIn = membersOf(resources, 'worker_instance');
      expect(scaledIn.map((m) => m.resource_name)).toEqual([initial[0].resource_name]);
      expect(resources.filter((r) => r.resource_name === 'workerNode')).toHaveLength(1);
      // The master group was untouched.
      expect(membersOf(resources, 'master_instance')).toHaveLength(1);
    });

    it('passes a VIP port address from get_attr into every master member (complex sample)', async () => {
      await heat.createStack(k8sBody('k8s-complex', 'complex'));
      await heat.waitFor('k8s-complex', ['CREATE_COMPLETE']);
      const resources = await heat.resources('k8s-complex');
      const vip = await heat.resource('k8s-complex', 'vip_CP');
      const vipIp = vip.attributes.fixed_ips[0].ip_address;
      expect(vipIp).toMatch(/^127\.20\./);
      const masterPorts = resources.filter((r) => r.resource_name === 'masterNode_CP1');
      expect(masterPorts).toHaveLength(3);
      for (const port of masterPorts) {
        const detail = await heat.resource(holdingStack(port), 'masterNode_CP1');
        expect(detail.attributes.allowed_address_pairs).toEqual([{ ip_address: vipIp }]);
        expect(detail.attributes.fixed_ips[0].ip_address).not.toBe(vipIp);
      }
    });

    it('replaces an unhealthy ASG member server, leaving the other members alone', async () => {
      await heat.createStack(k8sBody('k8s-heal', 'simple'));
      await heat.waitFor('k8s-heal', ['CREATE_COMPLETE']);
      const before = await heat.resources('k8s-heal');
      const [victim, other] = before.filter((r) => r.resource_name === 'workerNode');
      await heat.call('PATCH', `stacks/${holdingStack(victim)}/resources/workerNode`, { mark_unhealthy: true, resource_status_reason: 'x' });
      expect((await heat.call('PATCH', 'stacks/k8s-heal', {})).status).toBe(202);
      await heat.waitFor('k8s-heal', ['UPDATE_COMPLETE']);
      const after = (await heat.resources('k8s-heal')).filter((r) => r.resource_name === 'workerNode');
      const healed = after.find((r) => r.parent_resource === victim.parent_resource);
      expect(healed.physical_resource_id).not.toBe(victim.physical_resource_id);
      expect(after.find((r) => r.parent_resource === other.parent_resource).physical_resource_id).toBe(other.physical_resource_id);
    });
  });
});
