/**
 * Seed 003's guide end to end with the stock client, the simulator as the
 * cloud: a template and a cluster (`openstack coe cluster create`), CREATE_COMPLETE
 * with every node joined; `coe cluster config`, after which kubectl with that
 * kubeconfig lists the nodes Ready; scale out and in (`coe cluster update
 * --node-count`, `coe cluster resize --nodes-to-remove`), a nodegroup of its
 * own role, `coe ca rotate` (the old kubeconfig refused, a new one works),
 * and `coe cluster delete` (gone: 404).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, healthLoopEnd } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';
import { mcall } from '../support/magnum';
import { openstackCli } from '../support/openstack-cli';

const run = Date.now().toString(36);
let user: TestUser;
let dir: string;
let cli: ReturnType<typeof openstackCli>;
const coe = (args: string[], json = false) => cli.coe(args, json);
const waitCluster = (name: string, want: string, timeoutMs?: number) => cli.waitCluster(name, want, timeoutMs);
const config = (name: string, sub: string) => cli.config(name, sub);
const kubectl = (configDir: string, args: string[]) => cli.kubectl(configDir, args);
const readyNodes = (configDir: string) => cli.readyNodes(configDir);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'magnum-e2e-'));
  user = await keystoneUser(`e2e-project-${run}`, `e2e-user-${run}`, 'member');
  cli = openstackCli(user, dir);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const name = `k8s-cluster-${run}`;

test('create: CREATE_COMPLETE, coe cluster config, kubectl lists the nodes Ready', async () => {
  await coe(['cluster', 'template', 'create', `k8s-cluster-template-${run}`, '--image', 'ubuntu-22.04', '--external-network', 'public',
    '--dns-nameserver', '8.8.8.8', '--flavor', 'm1.small', '--network-driver', 'flannel', '--coe', 'kubernetes']);
  expect(await coe(['cluster', 'create', name, '--cluster-template', `k8s-cluster-template-${run}`, '--master-count', '1', '--node-count', '1']))
    .toMatch(/accepted/);
  const c = await waitCluster(name, 'CREATE_COMPLETE');
  expect(c).toMatchObject({ node_count: 1, master_count: 1, coe_version: 'v1.37.2' });
  expect(c.api_address).toMatch(/^https:\/\/127\.\d+\.\d+\.\d+:6443$/);
  const conf = await config(name, 'conf1');
  const nodes = await readyNodes(conf);
  expect(Object.values(nodes)).toEqual(['True', 'True']);
  const labels = await kubectl(conf, ['get', 'nodes', '-L', 'magnum.openstack.org/role', '-L', 'magnum.openstack.org/nodegroup', '--no-headers']);
  expect(labels).toMatch(/master +default-master/);
  expect(labels).toMatch(/worker +default-worker/);
  const health = await eventually('HEALTHY', async () => {
    const s = await coe(['cluster', 'show', name], true);
    return s.health_status === 'HEALTHY' ? s : undefined;
  }, 180_000, 3000);
  expect(health.health_status_reason.api).toBe('ok');
}, 900_000);

test('scale out and in with the stock CLI; a nodegroup of its own role', async () => {
  await coe(['cluster', 'update', name, '--node-count', '2']);
  expect((await waitCluster(name, 'UPDATE_COMPLETE')).node_count).toBe(2);
  const conf = await config(name, 'conf2');
  expect(Object.values(await readyNodes(conf))).toEqual(['True', 'True', 'True']);
  const workers = (await mcall('GET', `/v1/clusters/${name}`, undefined, await user.headers({ 'OpenStack-API-Version': 'container-infra latest' }))).body;
  expect(workers.node_addresses).toHaveLength(2);
  // resize back to one, naming the server to remove (the newest worker's server id, from Nova as the user sees it: the
  // cluster's servers are the user's project's, made through their trust on the shared VIM)
  const servers = (await cli.openstack(['server', 'list', '--name', 'default-worker-1'], true)).filter((s: any) => s.Name.startsWith(name.toLowerCase().slice(0, 20)));
  expect(servers).toHaveLength(1);
  expect(await coe(['cluster', 'resize', name, '1', '--nodes-to-remove', servers[0].ID])).toMatch(/Request to resize cluster .* has been accepted/);
  expect((await waitCluster(name, 'UPDATE_COMPLETE')).node_count).toBe(1);
  const left = await readyNodes(conf);
  expect(Object.keys(left)).toHaveLength(2);
  expect(Object.keys(left).some((n) => n.endsWith('default-worker-1'))).toBe(false);
  // a nodegroup of role "test", labelled so that pods can select it
  await coe(['nodegroup', 'create', name, 'test-ng', '--node-count', '1', '--role', 'test']);
  await waitCluster(name, 'UPDATE_COMPLETE');
  expect((await coe(['nodegroup', 'list', name, '--role', 'test'], true)).map((g: any) => [g.name, g.status])).toEqual([['test-ng', 'CREATE_COMPLETE']]);
  expect(await kubectl(conf, ['get', 'nodes', '-l', 'magnum.openstack.org/role=test', '--no-headers'])).toMatch(/test-ng-0 +Ready/);
  await coe(['nodegroup', 'delete', name, 'test-ng']);
  await waitCluster(name, 'UPDATE_COMPLETE');
  expect((await coe(['nodegroup', 'list', name], true)).map((g: any) => g.name)).toEqual(['default-master', 'default-worker']);
}, 1_200_000);

test('coe cluster upgrade: onto a template of the same Kubernetes version; a downgrade or a skipped minor is refused at once with its own reason', async () => {
  const tpl = (n: string, labels: string[]) => coe(['cluster', 'template', 'create', n, '--image', 'ubuntu-22.04', '--external-network', 'public',
    '--flavor', 'm1.small', '--coe', 'kubernetes', ...labels]);
  await tpl(`same-${run}`, []);
  // what kubeadm could never do is refused with its own reason: a downgrade, a skipped minor version
  await tpl(`older-${run}`, ['--labels', 'kube_tag=v1.36.3']);
  await tpl(`skip-${run}`, ['--labels', 'kube_tag=v1.39.0']);
  await expect(coe(['cluster', 'upgrade', name, `older-${run}`])).rejects.toThrow(/Downgrading Kubernetes from v1\.37\.2 to v1\.36\.3 is not supported/);
  await expect(coe(['cluster', 'upgrade', name, `skip-${run}`])).rejects.toThrow(/Upgrading Kubernetes from v1\.37\.2 to v1\.39\.0 skips a minor version: upgrade to a v1\.38 template first/);
  // as the API answers them: 400, and nothing started (the cluster as it was)
  const h = await user.headers({ 'OpenStack-API-Version': 'container-infra latest' });
  const before = (await mcall('GET', `/v1/clusters/${name}`, undefined, h)).body;
  for (const t of [`older-${run}`, `skip-${run}`]) expect((await mcall('POST', `/v1/clusters/${before.uuid}/actions/upgrade`, { cluster_template: t }, h)).status).toBe(400);
  const after = (await mcall('GET', `/v1/clusters/${name}`, undefined, h)).body;
  expect([after.status, after.status_reason, after.cluster_template_id]).toEqual([before.status, before.status_reason, before.cluster_template_id]);
  expect(await coe(['cluster', 'upgrade', name, `same-${run}`, '--max-batch-size', '1'])).toMatch(/Request to upgrade cluster .* has been accepted/);
  const c = await waitCluster(name, 'UPDATE_COMPLETE');
  expect(c.cluster_template_id).toBe((await coe(['cluster', 'template', 'show', `same-${run}`], true)).uuid);
}, 600_000);

test('coe ca rotate: the old kubeconfig is refused, a new one works; delete: 404 and the health loop ended', async () => {
  const before = await config(name, 'conf-before');
  expect(await coe(['ca', 'rotate', name])).toMatch(/Request to rotate the CA certificate for cluster .* has been accepted/);
  await waitCluster(name, 'UPDATE_COMPLETE', 900_000);
  await expect(kubectl(before, ['get', 'nodes'])).rejects.toThrow(/x509|certificate|Unauthorized|unknown authority/i);
  const after = await config(name, 'conf-after');
  expect(Object.values(await readyNodes(after)).every((s) => s === 'True')).toBe(true);
  const { uuid } = await coe(['cluster', 'show', name], true);
  await coe(['cluster', 'delete', name]);
  await cli.waitClusterGone(name);
  const gone = await mcall('GET', `/v1/clusters/${name}`, undefined, await user.headers());
  expect(gone.status).toBe(404);
  // the deletion ended the cluster's health loop, too
  expect(await healthLoopEnd(uuid)).toEqual({ status: 'COMPLETED', cancelledByDeletion: true });
}, 1_200_000);
