/**
 * Seed 000 part 2 end to end: Tacker's own kubernetes_vnf_package, its
 * kubernetes_mgmt.py mapped to the built-in cluster engine, instantiated with
 * the seed's private_registry_kubernetes_param_file.json against the private
 * registry VNF of part 1. The simulated masters run a real kube-apiserver
 * and etcd; the built kubectl, with the admin.conf kubeadm wrote on the
 * master, is the user's client. An install step failing and the worker
 * killed mid-install: test/disruptive/k8s-cluster-vnf-faults.test.ts.
 */

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { clusterNodes, clusterOfVnf } from '../../store/repos/clusters';
import { VENV } from '../../runtime/openstack/install';
import { readState } from '../harness/state';
import { adminToken, call, eventually, healthLoopEnd, sim, temporalClient } from '../support/api';
import { adminConf, instance, kubectl, newInstance, onboardRegistryAndPackage, params, readyNodes, untilReadyNodes, registry, SEED_PARAMS, task, vnfcsOf, work } from '../support/k8s-cluster-vnf';
import { withProductStore } from '../support/product-store';

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
beforeAll(onboardRegistryAndPackage, 600_000);


test("the seed's file as it is: 400 naming cluster_cp_name, which is not a port of flavour simple, and nothing is written", async () => {
  const id = await newInstance();
  const seed = structuredClone(SEED_PARAMS);
  delete seed.additionalParams.k8s_cluster_installation_param.proxy;
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, seed);
  expect(r.status).toBe(400);
  expect(r.body.detail).toContain('additionalParams.k8s_cluster_installation_param.master_node.cluster_cp_name: "vip_CP" is neither a CP of flavour simple nor a port of its BaseHOT (masterNode_CP1, workerNode_CP2)');
  expect((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?vnfInstanceId=${id}`)).body).toEqual([]);
  // other fields are named by their path too
  const bad = params((k) => { k.worker_node.ssh_cp_name = 'nope'; k.private_registry_connection_info[0].connection_type = '1'; });
  const r2 = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, bad);
  expect(r2.status).toBe(400);
  expect(r2.body.detail).toContain('additionalParams.k8s_cluster_installation_param.private_registry_connection_info[0].certificate_path: is required for connection_type 1');
});

describe('a 1-master, 2-worker cluster', () => {
  let id: string;
  let conf: string;

  beforeAll(async () => {
    id = await newInstance();
    await task(id, 'instantiate', params(), 'COMPLETED', 600_000);
    const [master] = await vnfcsOf(id, 'masterNode');
    conf = await adminConf(master.computeResource.resourceId, path.join(work, 'admin.conf'));
  }, 700_000);

  test('kubectl with the admin.conf from the master sees 3 Ready nodes; every node is set up for the private registry once', async () => {
    const nodes = await untilReadyNodes(conf, 3, '3 Ready nodes', 60_000);
    expect(nodes.map((n) => n.name).sort()).toEqual(((await withProductStore(async (s) => clusterNodes(s, (await clusterOfVnf(s, id))!.id)))).map((n) => n.name).sort());
    for (const v of [...await vnfcsOf(id, 'masterNode'), ...await vnfcsOf(id, 'workerNode')]) {
      const host = await sim<any>('GET', `/sim/servers/${v.computeResource.resourceId}/host`);
      expect(host.files.map((f: any) => f.path)).toContain(`/etc/containerd/certs.d/${registry}/hosts.toml`);
      expect(host.commands.some((c: any) => /kubeadm (init|join) --config/.test(c.command) && c.exitCode === 0)).toBe(true);
    }
  });

  test('health: HEALTHY, then UNHEALTHY naming the node whose server stopped, HEALTHY again when it is back', async () => {
    const health = async () => (await withProductStore((st) => clusterOfVnf(st, id)))!;
    await eventually('HEALTHY', async () => ((await health()).healthStatus === 'HEALTHY' ? true : undefined), 60_000);
    expect((await health()).healthStatusReason).toMatchObject({ api: 'ok' });
    const [worker] = await vnfcsOf(id, 'workerNode');
    const serverId = worker.computeResource.resourceId;
    const nova = async (action: string) => {
      const r = await fetch(`${readState().vimsimUrl}/compute/v2.1/servers/${serverId}/action`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-auth-token': await adminToken() }, body: JSON.stringify({ [action]: null }),
      });
      expect(r.status).toBe(202);
    };
    await nova('os-stop');
    const down = await eventually('UNHEALTHY', async () => { const c = await health(); return c.healthStatus === 'UNHEALTHY' ? c : undefined; }, 90_000);
    const nodeName = (await withProductStore((st) => clusterNodes(st, down.id))).find((n) => n.serverId === serverId)!.name;
    expect(down.healthStatusReason?.[`${nodeName}.Ready`]).not.toBe('True');
    await nova('os-start');
    await eventually('HEALTHY again', async () => ((await health()).healthStatus === 'HEALTHY' ? true : undefined), 90_000);
  });

  test('the cluster is registered as a Kubernetes VIM (openstack vim list/show); no token or password is shown or on a command line', async () => {
    const inst = await instance(id);
    const k8sVci = inst.vimConnectionInfo.find((v: any) => v.vimType === 'kubernetes');
    expect(k8sVci).toBeDefined();
    const vim = (await call('GET', `/v1.0/vims/${k8sVci.vimId}`)).body.vim;
    expect(vim).toMatchObject({ type: 'kubernetes', auth_url: expect.stringMatching(/^https:\/\/127\.\d+\.\d+\.\d+:6443$/) });
    expect(JSON.stringify(vim)).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}/); // no JWT
    // the stock CLI, as the admin whose project the instance is in
    const env = { PATH: process.env.PATH, HOME: work, OS_AUTH_URL: readState().keystoneUrl, OS_REGION_NAME: 'RegionOne', OS_USERNAME: 'admin', OS_PASSWORD: readState().adminPassword, OS_PROJECT_NAME: 'admin', OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_IDENTITY_API_VERSION: '3' };
    const cli = (...args: string[]) => JSON.parse(execFileSync(path.join(VENV, 'bin', 'openstack'), [...args, '-f', 'json'], { env, encoding: 'utf8', timeout: 120_000 }));
    expect(cli('vim', 'list').map((v: any) => v.Name)).toContain(vim.name);
    const shown = cli('vim', 'show', vim.id);
    expect(shown.type).toBe('kubernetes');
    expect(JSON.stringify(shown)).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}/);
    // no node ever saw a bootstrap token, a registry password or a login password as a program argument
    for (const v of [...await vnfcsOf(id, 'masterNode'), ...await vnfcsOf(id, 'workerNode')]) {
      const host = await sim<any>('GET', `/sim/servers/${v.computeResource.resourceId}/host`);
      expect(host.programs.length).toBeGreaterThan(20); // positive control: the record has the install's programs
      expect(host.programs.filter((p: any) => /--token|--discovery-token|--password|docker login/.test(p.argv))).toEqual([]);
    }
  });

  test('scale out adds a Ready worker; scale in cordons, drains and deletes its Node before Heat removes the server', async () => {
    await task(id, 'scale', { type: 'SCALE_OUT', aspectId: 'worker_instance', numberOfSteps: 1 });
    await untilReadyNodes(conf, 4, '4 Ready nodes', 60_000);
    const before = readyNodes(conf)!.map((n) => n.name);
    const op = await task(id, 'scale', { type: 'SCALE_IN', aspectId: 'worker_instance', numberOfSteps: 1 });
    const after = readyNodes(conf)!.map((n) => n.name);
    expect(after).toHaveLength(3);
    const removed = before.filter((n) => !after.includes(n));
    expect(removed).toHaveLength(1);
    // the scale_start child ran the removal steps in order
    const history = await (await temporalClient()).workflow.getHandle(`${op.id}-scale_start`).fetchHistory();
    const steps = (history.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'removeNodeStep'
      ? [JSON.parse(Buffer.from(e.activityTaskScheduledEventAttributes.input!.payloads![0].data!).toString()).step] : []);
    expect([...new Set(steps)]).toEqual(['cordon', 'drain', 'delete the Node of', 'kubeadm reset on']);
  });

  test('heal of a worker: its Node goes, the new server joins under the same name', async () => {
    const [worker] = await vnfcsOf(id, 'workerNode');
    await task(id, 'heal', { vnfcInstanceId: [worker.id] });
    const [healed] = (await vnfcsOf(id, 'workerNode')).filter((v) => v.id === worker.id);
    expect(healed.computeResource.resourceId).not.toBe(worker.computeResource.resourceId);
    await untilReadyNodes(conf, 3, '3 Ready nodes after the heal', 60_000);
  });

  test('heal of the one master: the cluster is installed again on the new server, the workers reset and rejoin it, the VIM re-registered under the same id', async () => {
    const [master] = await vnfcsOf(id, 'masterNode');
    const before = (await withProductStore((s) => clusterOfVnf(s, id)))!;
    const vimBefore = (await call('GET', `/v1.0/vims/${before.registeredVimId}`)).body.vim;
    const op = await task(id, 'heal', { vnfcInstanceId: [master.id] }, 'COMPLETED', 600_000);
    const [healed] = await vnfcsOf(id, 'masterNode');
    expect(healed.computeResource.resourceId).not.toBe(master.computeResource.resourceId);
    // the heal_end hook rebuilt the control plane: kubeadm init on the new server, kubeadm reset on each worker before its join
    const history = await (await temporalClient()).workflow.getHandle(`${op.id}-heal_end`).fetchHistory();
    const scheduled = (history.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    expect(scheduled.filter((n) => n === 'resetForRejoin')).toHaveLength(2);
    expect(scheduled).toContain('registerKubernetesVim');
    const host = await sim<any>('GET', `/sim/servers/${healed.computeResource.resourceId}/host`);
    expect(host.commands.some((c: any) => /kubeadm init --config/.test(c.command) && c.exitCode === 0)).toBe(true);
    const fresh = await adminConf(healed.computeResource.resourceId, path.join(work, 'admin-healed.conf'));
    await untilReadyNodes(fresh, 3, '3 Ready nodes after the master heal', 120_000);
    const after = (await withProductStore((s) => clusterOfVnf(s, id)))!;
    expect(after.registeredVimId).toBe(before.registeredVimId);
    const vimAfter = (await call('GET', `/v1.0/vims/${after.registeredVimId}`)).body.vim;
    expect(vimAfter.auth_url).toBe(vimBefore.auth_url);
    expect(vimAfter.status).toBe('REACHABLE');
    conf = fresh;
  });

  test('CA rotation: the old admin.conf is refused, the new one sees every node Ready', async () => {
    const cluster = (await withProductStore((s) => clusterOfVnf(s, id)))!;
    const client = await temporalClient();
    await client.workflow.execute('rotateClusterCa', { taskQueue: readState().env.TASK_QUEUE, workflowId: `rotate-ca-${cluster.id}`, args: [{ clusterId: cluster.id }], workflowExecutionTimeout: '10m' });
    expect(kubectl(conf, 'get', 'nodes').ok).toBe(false);
    const [master] = await vnfcsOf(id, 'masterNode');
    const fresh = await adminConf(master.computeResource.resourceId, path.join(work, 'admin-new.conf'));
    await untilReadyNodes(fresh, 3, '3 Ready nodes with the new CA', 120_000);
    conf = fresh;
  });

  test('terminate removes the cluster, its VIM and its PKI, and ends its health loop', async () => {
    const cluster = (await withProductStore((s) => clusterOfVnf(s, id)))!;
    await task(id, 'terminate', { terminationType: 'FORCEFUL' });
    expect(await withProductStore((s) => clusterOfVnf(s, id))).toBeUndefined();
    expect((await call('GET', `/v1.0/vims/${cluster.registeredVimId}`)).status).toBe(404);
    expect(await healthLoopEnd(cluster.id)).toEqual({ status: 'COMPLETED', cancelledByDeletion: true });
  });
});

