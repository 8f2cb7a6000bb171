/**
 * The stock python-magnumclient 5.0.0 (from PyPI, in the project's venv)
 * through the real Keystone's catalog (container-infra at <api>/v1), as a
 * member of a project of its own: `openstack coe cluster template`,
 * `cluster`, `nodegroup`, `ca`, `cluster config`, `quotas`, `stats`,
 * `service`. Until the simulator runs Kubernetes control planes, clusters
 * end CREATE_FAILED at their first node step (a fault injected here makes
 * that certain): what needs a running cluster is answered with its refusal.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { VENV } from '../../runtime/openstack/install';
import { readState } from '../harness/state';
import { addSshFault, clearFaults, eventually } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';
import { LATEST, mcall } from '../support/magnum';
import { opensslCsr } from '../support/openssl';

const exec = promisify(execFile);
const run = Date.now().toString(36);
let user: TestUser;
let dir: string;

/** `openstack <args>` as `who`; JSON output when asked. Failures reject with what the CLI printed. */
async function coe(args: string[], o: { json?: boolean; who?: { name: string; password: string; project: string } } = {}): Promise<any> {
  const who = o.who ?? user;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: dir, SHELL: '/bin/bash', PYTHONWARNINGS: 'ignore',
    OS_AUTH_URL: readState().keystoneUrl, OS_REGION_NAME: 'RegionOne', OS_USERNAME: who.name, OS_PASSWORD: who.password, OS_PROJECT_NAME: who.project,
    OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_IDENTITY_API_VERSION: '3',
  };
  try {
    const { stdout } = await exec(path.join(VENV, 'bin', 'openstack'), ['coe', ...args, ...(o.json ? ['-f', 'json'] : [])], { env, timeout: 120_000, cwd: dir });
    return o.json ? JSON.parse(stdout) : stdout;
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`openstack coe ${args.join(' ')}: ${err.stderr || err.stdout || err.message}`);
  }
}
const admin = { name: 'admin', get password() { return readState().adminPassword; }, project: 'admin' };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'magnumclient-'));
  user = await keystoneUser(`coe-project-${run}`, `coe-user-${run}`, 'member');
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await clearFaults();
});

test('coe cluster template create, show, list, update, delete (the seed\'s template on the simulator\'s image)', async () => {
  const name = `k8s-cluster-template-${run}`;
  expect(await coe(['cluster', 'template', 'create', name, '--image', 'ubuntu-22.04', '--external-network', 'public', '--dns-nameserver', '8.8.8.8',
    '--flavor', 'm1.small', '--docker-volume-size', '5', '--network-driver', 'flannel', '--coe', 'kubernetes', '--labels', 'kube_tag=v1.37.2,a=b']))
    .toMatch(new RegExp(`\\| name +\\| ${name} +\\|`));
  const t = await coe(['cluster', 'template', 'show', name], { json: true });
  expect(t).toMatchObject({ name, coe: 'kubernetes', image_id: 'ubuntu-22.04', docker_storage_driver: 'overlay2', cluster_distro: 'ubuntu', labels: { kube_tag: 'v1.37.2', a: 'b' } });
  expect((await coe(['cluster', 'template', 'show', name], { json: true })).uuid).toBe(t.uuid);
  expect((await coe(['cluster', 'template', 'list'], { json: true })).map((x: any) => x.name)).toContain(name);
  await coe(['cluster', 'template', 'update', name, '--label', 'c=d', '--no-label', 'a']);
  expect((await coe(['cluster', 'template', 'show', name], { json: true })).labels).toEqual({ kube_tag: 'v1.37.2', c: 'd' });
  await expect(coe(['cluster', 'template', 'update', name, '--public'])).rejects.toThrow(/Not authorized to set public or hidden flag/);
  await expect(coe(['cluster', 'template', 'create', `bad-${run}`, '--image', 'fedora-coreos-latest', '--external-network', 'public', '--coe', 'kubernetes']))
    .rejects.toThrow(/Image fedora-coreos-latest could not be found/);
  await coe(['cluster', 'template', 'delete', name]);
  await expect(coe(['cluster', 'template', 'show', name])).rejects.toThrow(/could not be found/);
});

test('coe cluster create, list, show, nodegroups, ca show and sign, cluster config, refusals, delete', async () => {
  const tname = `tpl-${run}`;
  await coe(['cluster', 'template', 'create', tname, '--image', 'ubuntu-22.04', '--external-network', 'public', '--flavor', 'm1.small', '--coe', 'kubernetes']);
  await addSshFault({ match: 'swapoff', exitCode: 1, stderr: 'swapoff failed', times: 20 });
  const name = `k8s-${run}`;
  const out = await coe(['cluster', 'create', name, '--cluster-template', tname, '--node-count', '1', '--master-count', '1', '--timeout', '30']);
  expect(out).toMatch(/Request to create cluster [0-9a-f-]{36} accepted/);
  const listed = (await coe(['cluster', 'list'], { json: true })).find((c: any) => c.name === name);
  expect(listed).toMatchObject({ node_count: 1, master_count: 1 });
  // waited for through the API (a CLI run a poll would cost two seconds of CPU), then shown by the CLI
  await eventually('CREATE_FAILED', async () => ((await mcall('GET', `/v1/clusters/${name}`, undefined, await user.headers(LATEST))).body?.status === 'CREATE_FAILED' ? true : undefined), 180_000, 2000);
  const failed = await coe(['cluster', 'show', name], { json: true });
  expect(failed.status).toBe('CREATE_FAILED');
  expect(failed.status_reason).toMatch(/^Step "install Kubernetes" failed: (2 nodes failed: )?prepare on (master|worker) \S+ \(127\./);
  expect(failed.api_address).toMatch(/^https:\/\/127\./);
  const ngs = await coe(['nodegroup', 'list', name], { json: true });
  expect(ngs.map((g: any) => g.name)).toEqual(['default-master', 'default-worker']);
  expect((await coe(['nodegroup', 'list', name, '--role', 'master'], { json: true })).map((g: any) => g.name)).toEqual(['default-master']);
  expect((await coe(['nodegroup', 'show', name, 'default-worker'], { json: true })).is_default).toBe(true);
  await expect(coe(['nodegroup', 'delete', name, 'default-worker'])).rejects.toThrow(/Deleting a default nodegroup is not supported/);
  // the CA and a signed client certificate, as the seed's guide does it by hand
  const ca = await coe(['ca', 'show', name]);
  expect(ca).toMatch(/-----BEGIN CERTIFICATE-----/);
  const { csrPem } = opensslCsr('/CN=admin/O=system:masters');
  fs.writeFileSync(path.join(dir, 'client.csr'), csrPem);
  expect(await coe(['ca', 'sign', name, path.join(dir, 'client.csr')])).toMatch(/-----BEGIN CERTIFICATE-----/);
  // coe cluster config: a kubeconfig with the API address, the CA and a key and certificate the API signed
  fs.mkdirSync(path.join(dir, 'conf'));
  expect(await coe(['cluster', 'config', name, '--dir', path.join(dir, 'conf'), '--output-certs'])).toMatch(/^export KUBECONFIG=.*conf\/config/);
  const kubeconfig = fs.readFileSync(path.join(dir, 'conf', 'config'), 'utf8');
  expect(kubeconfig).toContain(`server: ${failed.api_address}`);
  expect(kubeconfig).toMatch(/client-certificate-data: \S+/);
  expect(fs.existsSync(path.join(dir, 'conf', 'ca.pem'))).toBe(true);
  // what needs a running cluster is refused at once, with the reason
  await expect(coe(['cluster', 'update', name, '--node-count', '2'])).rejects.toThrow(/Updating a cluster when status is "CREATE_FAILED" is not supported/);
  await expect(coe(['cluster', 'resize', name, '2'])).rejects.toThrow(/Resizing a cluster when status is "CREATE_FAILED" is not supported/);
  await expect(coe(['ca', 'rotate', name])).rejects.toThrow(/when status is "CREATE_FAILED" is not supported/);
  await expect(coe(['cluster', 'update', name, '--name', 'other'])).rejects.toThrow(/cannot change cluster property\(ies\) name/);
  await expect(coe(['nodegroup', 'create', name, 'extra', '--node-count', '1'])).rejects.toThrow(/Creating a nodegroup when the cluster status is "CREATE_FAILED" is not supported/);
  expect(await coe(['stats', 'list', user.projectId])).toMatch(/\| clusters \| 1 +\|[\s\S]*\| nodes +\| 2 +\|/);
  expect(await coe(['cluster', 'delete', name])).toMatch(/Request to delete cluster .* has been accepted/);
  await eventually('cluster gone', async () => ((await mcall('GET', `/v1/clusters/${name}`, undefined, await user.headers(LATEST))).status === 404 ? true : undefined), 120_000, 2000);
  expect((await coe(['cluster', 'list'], { json: true })).map((c: any) => c.name)).not.toContain(name);
  await coe(['cluster', 'template', 'delete', tname]);
});

test('coe quotas create, show, list, update, delete and coe service list, as the admin', async () => {
  // these commands print their own tables (no -f json), and report a refusal on stdout
  const row = (hardLimit: number) => new RegExp(`\\| ${user.projectId} \\| Cluster +\\| ${hardLimit} +\\|`);
  expect(await coe(['quotas', 'create', '--project-id', user.projectId, '--resource', 'Cluster', '--hard-limit', '3'], { who: admin })).toMatch(/\| hard_limit +\| 3 +\|/);
  expect(await coe(['quotas', 'show', '--project-id', user.projectId, '--resource', 'Cluster'])).toMatch(/\| hard_limit +\| 3 +\|/);
  await coe(['quotas', 'update', '--project-id', user.projectId, '--resource', 'Cluster', '--hard-limit', '5'], { who: admin });
  expect(await coe(['quotas', 'list', '--all-tenants'], { who: admin })).toMatch(row(5));
  expect(await coe(['quotas', 'delete', '--project-id', user.projectId, '--resource', 'Cluster'], { who: admin })).toMatch(/Request to delete quota .* has been accepted/);
  expect(await coe(['quotas', 'create', '--project-id', user.projectId, '--resource', 'Cluster', '--hard-limit', '3'])).toMatch(/Create quota .* failed: .*not allow/i);
  const services = await coe(['service', 'list'], { json: true, who: admin });
  expect(services).toEqual([expect.objectContaining({ id: 1, binary: 'magnum-conductor', state: 'up' })]);
  await expect(coe(['service', 'list'])).rejects.toThrow(/not allow/i);
});
