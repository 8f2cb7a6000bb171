/**
 * A Kubernetes minor upgrade, v1.36.3 → v1.37.2, on the simulator's machines
 * as the kubeadm documentation (and the product) runs it over SSH: a master
 * and a worker installed from the pkgs.k8s.io v1.36 repository, the first
 * master's kubeadm from v1.37, `kubeadm upgrade plan` and `apply`, drain,
 * the kubelet and kubectl packages, a kubelet restart, uncordon; the worker
 * the same with `kubeadm upgrade node`. Behind it the real kube-apiserver
 * v1.36.3 is replaced by the real v1.37.2. Also the refusals a real node
 * gives (kubeadm too old, a held package, a version the repository lacks, a
 * skipped minor, a downgrade, an image that cannot be pulled) and an
 * injected `kubeadm upgrade node` failure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import type { Client } from 'ssh2';
import { ensureKubeToolchain } from '../../runtime/kube';
import { processesUsing } from '@nfv-orchestrator/vimsim/kube/processes';
import { PUBLIC_NETWORK_ID, seedImageId } from '@nfv-orchestrator/vimsim/store/seed';
import { admin, CloudClient, startTestSim, type TestSim } from '../support/vimsim-helpers';
import { kubectlRun, must, put, sh, until } from '../support/vimsim-node-shell';
import { freePort, sshConnect } from '../support/vimsim-ssh-helpers';

const PASSWORD = 'Kube-upgrade-pw-1!';
const USER_DATA = `#cloud-config\npassword: ${PASSWORD}\nchpasswd: { expire: False }\nssh_pwauth: True\n`;
const MV = { 'X-OpenStack-Nova-API-Version': '2.96' };
const ADMIN = '--kubeconfig /etc/kubernetes/admin.conf';

const toolchain = ensureKubeToolchain((m) => console.log(m));
interface Node { id: string; name: string; address: string; ssh: Client }

/** The pkgs.k8s.io repository of a minor, as cluster/install/steps.ts writes it. */
const repo = (minor: string) => [
  'sudo mkdir -p -m 755 /etc/apt/keyrings',
  `curl -fsSL https://pkgs.k8s.io/core:/stable:/v${minor}/deb/Release.key | sudo gpg --batch --yes --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg`,
  `echo 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v${minor}/deb/ /' | sudo tee /etc/apt/sources.list.d/kubernetes.list >/dev/null`,
  'sudo apt-get update',
].join(' && ');

const KUBEADM_137 = 'sudo apt-mark unhold kubeadm && sudo apt-get install -y kubeadm=1.37.2-1.1 && sudo apt-mark hold kubeadm';
const KUBELET_137 = 'sudo apt-mark unhold kubelet kubectl && sudo apt-get install -y kubelet=1.37.2-1.1 kubectl=1.37.2-1.1 && sudo apt-mark hold kubelet kubectl && sudo systemctl daemon-reload && sudo systemctl restart kubelet';

/** A server at a fixed address of its own: the control plane listens on fixed ports (6443, 2379, 2380) of it. */
async function boot(nova: CloudClient, port: number, name: string, address: string): Promise<Node> {
  const res = await nova.call('compute', 'POST', '/servers', {
    server: { name, imageRef: seedImageId('ubuntu-20.04'), flavorRef: '3', networks: [{ uuid: PUBLIC_NETWORK_ID, fixed_ip: address }], user_data: Buffer.from(USER_DATA).toString('base64') },
  }, MV);
  expect(res.status).toBe(202);
  const s = (await nova.until('compute', `/servers/${res.body.server.id}`, (b) => b.server.status === 'ACTIVE', 10_000, MV)).server;
  return { id: s.id, name, address, ssh: (await sshConnect(address, port, 'ubuntu', { password: PASSWORD })).client };
}

/** docs/cluster-engine.md steps 1, 2 and 4 at v1.36.3. */
async function prepare(n: Node): Promise<void> {
  await must(n, "sudo swapoff -a && sudo sed -i '/ swap / s/^\\(.*\\)$/#\\1/g' /etc/fstab && sudo modprobe overlay && sudo modprobe br_netfilter && sudo sysctl -w net.ipv4.ip_forward=1");
  await must(n, 'sudo apt-get install -y containerd');
  await put(n, '/etc/containerd/config.toml', 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n', '0600');
  await must(n, 'sudo systemctl restart containerd');
  await must(n, `${repo('1.36')} && sudo apt-get install -y kubelet=1.36.3-1.1 kubeadm=1.36.3-1.1 kubectl=1.36.3-1.1 && sudo apt-mark hold kubelet kubeadm kubectl && sudo systemctl enable --now kubelet`);
}

const simKube = () => ({ apiserverBin: toolchain.kubeApiserver, apiserverBins: toolchain.kubeApiservers, etcdBin: toolchain.etcd, podBackoffMs: 500, leaseRenewMs: 1000 });

describe('vimsim Kubernetes minor upgrade v1.36.3 → v1.37.2 (kubeadm upgrade)', () => {
  let sim: TestSim;
  let nova: CloudClient;
  let port: number;
  let tmp: string;
  let adminConf: string;
  let master: Node;
  let worker: Node;

  const kubectl = (...args: string[]) => kubectlRun(toolchain.kubectl, adminConf, ...args);
  const kubeletVersions = async (): Promise<Record<string, string>> => {
    const r = await kubectl('get', 'nodes', '-o', 'json');
    if (r.code !== 0) return {};
    const items = (JSON.parse(r.out) as { items: { metadata: { name: string }; status: { nodeInfo: { kubeletVersion: string } } }[] }).items;
    return Object.fromEntries(items.map((i) => [i.metadata.name, i.status.nodeInfo.kubeletVersion]));
  };
  const serverVersion = async () => {
    const r = await kubectl('get', '--raw', '/version');
    return r.code === 0 ? (JSON.parse(r.out) as { gitVersion: string }).gitVersion : undefined;
  };
  const clusterVersion = async () => {
    const cm = JSON.parse((await kubectl('get', 'configmap', '-n', 'kube-system', 'kubeadm-config', '-o', 'json')).out);
    return YAML.parse(cm.data.ClusterConfiguration).kubernetesVersion as string;
  };

  beforeAll(async () => {
    port = await freePort();
    sim = await startTestSim({ delayMs: 20, sshPort: port, kube: simKube() });
    nova = await CloudClient.connect(sim);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vimsim-kube-upgrade-'));
    master = await boot(nova, port, 'upg-master-0', '127.20.252.10');
    worker = await boot(nova, port, 'upg-worker-0', '127.20.252.11');
  });

  afterAll(async () => {
    for (const n of [master, worker]) n?.ssh.end();
    const dir = sim ? path.join(sim.dataDir, 'vimsim', 'kube') : undefined;
    await admin(sim, 'DELETE', '/ssh/faults').catch(() => undefined);
    await sim?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    if (dir) expect(processesUsing(dir)).toEqual([]);
  });

  it('installs a v1.36.3 cluster: the real kube-apiserver v1.36.3 answers, both kubelets report v1.36.3', async () => {
    await Promise.all([prepare(master), prepare(worker)]);
    const init = await must(master, `sudo kubeadm init --kubernetes-version v1.36.3 --pod-network-cidr=10.244.0.0/16 --control-plane-endpoint ${master.address}:6443`);
    expect(init.stdout).toContain('[init] Using Kubernetes version: v1.36.3');
    expect((await must(master, 'sudo cat /etc/kubernetes/manifests/kube-apiserver.yaml')).stdout).toContain('image: registry.k8s.io/kube-apiserver:v1.36.3');
    const join = /kubeadm join \S+ --token (\S+) \\\n\t--discovery-token-ca-cert-hash (\S+)\s*$/.exec(init.stdout);
    expect(join).not.toBeNull();
    await must(worker, `sudo kubeadm join ${master.address}:6443 --token ${join![1]} --discovery-token-ca-cert-hash ${join![2]}`);

    adminConf = path.join(tmp, 'admin.conf');
    fs.writeFileSync(adminConf, (await must(master, 'sudo cat /etc/kubernetes/admin.conf')).stdout, { mode: 0o600 });
    // kubectl v1.37.2 against a v1.36 server: within kubectl's skew of one minor
    expect(await serverVersion()).toBe('v1.36.3');
    expect(await clusterVersion()).toBe('v1.36.3');
    expect(await until('both kubelets registered', async () => {
      const v = await kubeletVersions();
      return Object.keys(v).length === 2 ? v : undefined;
    })).toEqual({ 'upg-master-0': 'v1.36.3', 'upg-worker-0': 'v1.36.3' });
    const view = (await admin(sim, 'GET', `/servers/${master.id}/kube`)).body;
    expect(view.pods.find((p: { name: string }) => p.name === 'kube-apiserver')).toMatchObject({ state: 'running', image: 'registry.k8s.io/kube-apiserver:v1.36.3' });
  });

  it('refuses what a real node refuses: kubeadm too old, a held package, a version the repository lacks', async () => {
    const old = await sh(master, 'sudo kubeadm upgrade apply v1.37.2 -y');
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('Specified version to upgrade to "v1.37.2" is at least one minor release higher than the kubeadm minor release (37 > 36). Such an upgrade is not supported');
    await must(master, repo('1.37'));
    const held = await sh(master, 'sudo apt-get install -y kubeadm=1.37.2-1.1');
    expect(held).toMatchObject({ code: 100, stderr: 'E: Held packages were changed and -y was used without --allow-change-held-packages.\n' });
    expect(held.stdout).toContain('The following held packages will be changed:\n  kubeadm\nThe following packages will be upgraded:\n  kubeadm\n');
    // the v1.37 repository serves v1.37 only
    const gone = await sh(master, 'sudo apt-get install -y --allow-change-held-packages kubelet=1.36.3-1.1');
    expect(gone).toMatchObject({ code: 100, stderr: "E: Version '1.36.3-1.1' for 'kubelet' was not found\n" });
    expect((await must(master, 'kubeadm version -o short')).stdout).toBe('v1.36.3\n');
    await must(master, KUBEADM_137);
    expect((await must(master, 'kubeadm version -o short')).stdout).toBe('v1.37.2\n');
  });

  it('plans the upgrade and refuses a skipped minor, a downgrade and an image it cannot pull', async () => {
    const plan = await must(master, 'sudo kubeadm upgrade plan');
    expect(plan.stdout).toContain('[upgrade/versions] Cluster version: v1.36.3');
    expect(plan.stdout).toContain('\tkubeadm upgrade apply v1.37.2');
    expect(plan.stdout).toMatch(/kubelet\s+upg-worker-0\s+v1\.36\.3\s+v1\.37\.2/);

    const skip = await sh(master, 'sudo kubeadm upgrade apply v1.38.0 -y');
    expect(skip.code).toBe(1);
    expect(skip.stderr).toContain('Specified version to upgrade to "v1.38.0" is too high; kubeadm can upgrade only 1 minor version at a time');
    const down = await sh(master, 'sudo kubeadm upgrade apply v1.36.0 -y');
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('the version argument is invalid due to these errors:\n\n\t- Kubeadm version v1.37.2 can only be used to upgrade to Kubernetes version 1.37\n\nCan be bypassed if you pass the --force flag');
    const unbuilt = await sh(master, 'sudo kubeadm upgrade apply v1.37.0 -y');
    expect(unbuilt.code).toBe(1);
    expect(unbuilt.stderr).toContain('[ERROR ImagePull]: failed to pull image registry.k8s.io/kube-apiserver:v1.37.0');
    // nothing changed
    expect(await clusterVersion()).toBe('v1.36.3');
    expect((await must(master, 'sudo cat /etc/kubernetes/manifests/kube-apiserver.yaml')).stdout).toContain('kube-apiserver:v1.36.3');
  });

  it('upgrades the first master: kubeadm upgrade apply (after an injected failure), drain, kubelet, uncordon', async () => {
    const fault = await admin(sim, 'POST', '/ssh/faults', { server: master.id, match: 'kubeadm upgrade apply', stderr: 'error execution phase control-plane: injected\n', times: 1 });
    expect(fault.status).toBe(201);
    expect(await sh(master, 'sudo kubeadm upgrade apply v1.37.2 -y')).toMatchObject({ code: 1, stderr: 'error execution phase control-plane: injected\n' });

    const t0 = Date.now();
    const apply = await must(master, 'sudo kubeadm upgrade apply v1.37.2 -y --certificate-renewal=false');
    console.log(`kubeadm upgrade apply took ${Date.now() - t0} ms`);
    expect(apply.stdout).toContain('[upgrade/staticpods] Component "kube-apiserver" upgraded successfully!');
    expect(apply.stdout).toContain('[upgrade] SUCCESS! A control plane node of your cluster was upgraded to "v1.37.2".');
    expect(await serverVersion()).toBe('v1.37.2');
    expect(await clusterVersion()).toBe('v1.37.2');
    expect((await must(master, 'sudo ls /etc/kubernetes/tmp')).stdout).toMatch(/kubeadm-backup-manifests-/);

    const drained = await must(master, `sudo kubectl ${ADMIN} drain upg-master-0 --ignore-daemonsets --delete-emptydir-data`);
    expect(drained.stdout).toContain('node/upg-master-0 cordoned');
    expect(drained.stdout).toContain('node/upg-master-0 drained');
    await must(master, KUBELET_137);
    await until('the master kubelet at v1.37.2', async () => ((await kubeletVersions())['upg-master-0'] === 'v1.37.2' ? true : undefined), 20_000);
    expect((await must(master, `sudo kubectl ${ADMIN} uncordon upg-master-0`)).stdout).toBe('node/upg-master-0 uncordoned\n');
    // an old kubelet under a new control plane keeps working
    expect((await kubeletVersions())['upg-worker-0']).toBe('v1.36.3');
    const lease = JSON.parse((await kubectl('get', 'lease', '-n', 'kube-node-lease', 'upg-worker-0', '-o', 'json')).out);
    expect(Date.now() - Date.parse(lease.spec.renewTime)).toBeLessThan(5_000);
  });

  it('upgrades the worker: kubeadm upgrade node (refused with the old kubeadm, then an injected failure), drain, kubelet, uncordon', async () => {
    const old = await sh(worker, 'sudo kubeadm upgrade node');
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('[ERROR KubernetesVersion]: Kubernetes version is greater than kubeadm version. Please consider to upgrade kubeadm. Kubernetes version: 1.37.2. Kubeadm version: 1.36.x');
    await must(worker, `${repo('1.37')} && ${KUBEADM_137}`);
    const fault = (await admin(sim, 'POST', '/ssh/faults', { server: worker.address, match: 'kubeadm upgrade node', exitCode: 1, stderr: 'error execution phase kubelet-config: injected\n', times: 1000 })).body;
    expect((await sh(worker, 'sudo kubeadm upgrade node')).code).toBe(1);
    expect((await sh(worker, 'sudo kubeadm upgrade node')).stderr).toBe('error execution phase kubelet-config: injected\n');
    expect((await admin(sim, 'DELETE', `/ssh/faults/${fault.id}`)).status).toBe(204);
    const node = await must(worker, 'sudo kubeadm upgrade node');
    expect(node.stdout).toContain('[upgrade/control-plane] Skipping phase. Not a control plane node.');
    expect(node.stdout).toContain('[upgrade/kubelet-config] The kubelet configuration for this node was successfully upgraded!');

    // a pod a controller owns is evicted, and the kubelet confirms its deletion
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'default', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: '0b7f6a52-9a55-4f0c-8c0c-6a2f3c1d2e4f', controller: true }] }, spec: { nodeName: 'upg-worker-0', containers: [{ name: 'web', image: 'nginx' }], volumes: [{ name: 'cache', emptyDir: {} }] } };
    const file = path.join(tmp, 'pod.json');
    fs.writeFileSync(file, JSON.stringify(pod));
    expect((await kubectl('create', '-f', file)).code).toBe(0);
    const refused = await sh(master, `sudo kubectl ${ADMIN} drain upg-worker-0 --ignore-daemonsets`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('cannot delete Pods with local storage (use --delete-emptydir-data to override): default/web-1');
    const drained = await must(master, `sudo kubectl ${ADMIN} drain upg-worker-0 --ignore-daemonsets --delete-emptydir-data --timeout=60s`);
    expect(drained.stdout).toContain('pod/web-1 evicted');
    expect(drained.stdout).toContain('node/upg-worker-0 drained');
    await must(worker, KUBELET_137);
    await until('the worker kubelet at v1.37.2', async () => ((await kubeletVersions())['upg-worker-0'] === 'v1.37.2' ? true : undefined), 20_000);
    await must(master, `sudo kubectl ${ADMIN} uncordon upg-worker-0`);

    const nodes = (await must(master, `sudo kubectl ${ADMIN} get nodes`)).stdout;
    expect(nodes).toMatch(/upg-master-0\s+Ready\s+control-plane\s+\S+\s+v1\.37\.2/);
    expect(nodes).toMatch(/upg-worker-0\s+Ready\s+<none>\s+\S+\s+v1\.37\.2/);
    expect((await must(master, `sudo kubectl ${ADMIN} version`)).stdout).toBe('Client Version: v1.37.2\nKustomize Version: v5.8.1\nServer Version: v1.37.2\n');
  });

  it('fails a kube-apiserver whose image tag has no binary as an image pull fails, and runs it again once the tag is back', async () => {
    const manifest = '/etc/kubernetes/manifests/kube-apiserver.yaml';
    await must(master, `sudo sed -i 's#kube-apiserver:v1.37.2#kube-apiserver:v1.99.0#' ${manifest}`);
    const pod = await until('the pod in ImagePullBackOff', async () => {
      const p = (await admin(sim, 'GET', `/servers/${master.id}/kube`)).body.pods.find((x: { name: string }) => x.name === 'kube-apiserver');
      return p?.state === 'ImagePullBackOff' ? p : undefined;
    }, 20_000);
    expect(pod.error).toContain('Failed to pull image "registry.k8s.io/kube-apiserver:v1.99.0": rpc error: code = NotFound');
    expect(pod.pid).toBeUndefined();
    await must(master, `sudo sed -i 's#kube-apiserver:v1.99.0#kube-apiserver:v1.37.2#' ${manifest}`);
    expect(await until('the API back', serverVersion, 30_000)).toBe('v1.37.2');
  });

  it('holds the pulls of a machine an image pull fault names: kubeadm config images pull fails, the API server backs off, both go on once it is lifted', async () => {
    const fault = await admin(sim, 'POST', '/faults', { target: 'image', operation: 'pull', mode: 'hang', match: 'upg-master-0' });
    expect(fault.status).toBe(201);
    const held = await sh(master, 'sudo kubeadm config images pull --kubernetes-version v1.37.2');
    expect(held.code).toBe(1);
    expect(held.stderr).toContain('failed to pull image registry.k8s.io/kube-apiserver:v1.37.2: output: E0000 the registry does not serve registry.k8s.io/kube-apiserver:v1.37.2 to this machine yet');
    // the worker is not named: its pulls go on
    expect((await sh(worker, 'sudo kubeadm config images pull --kubernetes-version v1.37.2')).code).toBe(0);
    const manifest = '/etc/kubernetes/manifests/kube-apiserver.yaml';
    await must(master, `sudo mv ${manifest} /root/`);
    await until('the API server stopped', async () => ((await serverVersion()) === undefined ? true : undefined), 20_000);
    await must(master, `sudo mv /root/kube-apiserver.yaml ${manifest}`);
    const pod = await until('the pod in ImagePullBackOff', async () => {
      const p = (await admin(sim, 'GET', `/servers/${master.id}/kube`)).body.pods.find((x: { name: string }) => x.name === 'kube-apiserver');
      return p?.state === 'ImagePullBackOff' ? p : undefined;
    }, 20_000);
    expect(pod.error).toContain('the registry does not serve');
    expect((await admin(sim, 'DELETE', `/faults/${fault.body.id}`)).status).toBe(204);
    expect(await until('the API back', serverVersion, 30_000)).toBe('v1.37.2');
    const pulled = await must(master, 'sudo kubeadm config images pull --kubernetes-version v1.37.2');
    expect(pulled.stdout).toContain('[config/images] Pulled registry.k8s.io/kube-apiserver:v1.37.2');
  });
});

describe('vimsim Kubernetes HA upgrade v1.36.3 → v1.37.2 (stacked etcd, kubeadm upgrade node on the other masters)', () => {
  let sim: TestSim;
  const masters: Node[] = [];

  /** Each master's own API server: its image and its /version through its own address. */
  const apiservers = () => Promise.all(masters.map(async (m) => {
    const pod = (await admin(sim, 'GET', `/servers/${m.id}/kube`)).body.pods.find((p: { name: string }) => p.name === 'kube-apiserver');
    const version = await sh(m, `sudo kubectl ${ADMIN} --server https://${m.address}:6443 get --raw /version`);
    return [pod?.image, pod?.state, version.code === 0 ? JSON.parse(version.stdout).gitVersion : version.stderr];
  }));
  /** A just started API server forbids everything until its RBAC caches are synced: asked again for a while. */
  const expectApiservers = async (want: string[][]) => {
    let last: unknown;
    await until('the API servers as expected', async () => {
      last = await apiservers();
      return JSON.stringify(last) === JSON.stringify(want) ? true : undefined;
    }, 20_000).catch(() => undefined);
    expect(last).toEqual(want);
  };

  beforeAll(async () => {
    const port = await freePort();
    sim = await startTestSim({ delayMs: 20, sshPort: port, kube: simKube() });
    const nova = await CloudClient.connect(sim);
    for (const i of [0, 1, 2]) masters.push(await boot(nova, port, `upg-ha-master-${i}`, `127.20.252.${20 + i}`));
  });

  afterAll(async () => {
    for (const m of masters) m.ssh.end();
    const dir = sim ? path.join(sim.dataDir, 'vimsim', 'kube') : undefined;
    await sim?.close();
    if (dir) expect(processesUsing(dir)).toEqual([]);
  });

  it('installs three v1.36.3 masters (init --upload-certs, join --control-plane) and upgrades them one by one', async () => {
    const [m0, m1, m2] = masters;
    await Promise.all(masters.map(prepare));
    const init = await must(m0, `sudo kubeadm init --kubernetes-version v1.36.3 --control-plane-endpoint ${m0.address}:6443 --upload-certs`);
    const join = /kubeadm join \S+ --token (\S+) \\\n\t--discovery-token-ca-cert-hash (\S+) \\\n\t--control-plane --certificate-key ([0-9a-f]{64})/.exec(init.stdout);
    expect(join).not.toBeNull();
    for (const m of [m1, m2]) await must(m, `sudo kubeadm join ${m0.address}:6443 --token ${join![1]} --discovery-token-ca-cert-hash ${join![2]} --control-plane --certificate-key ${join![3]}`);
    const old = ['registry.k8s.io/kube-apiserver:v1.36.3', 'running', 'v1.36.3'];
    await expectApiservers([old, old, old]);

    await must(m0, `${repo('1.37')} && ${KUBEADM_137}`);
    expect((await must(m0, 'sudo kubeadm upgrade apply v1.37.2 -y')).stdout).toContain('[upgrade] SUCCESS! A control plane node of your cluster was upgraded to "v1.37.2".');
    const fresh = ['registry.k8s.io/kube-apiserver:v1.37.2', 'running', 'v1.37.2'];
    await expectApiservers([fresh, old, old]);
    for (const m of [m1, m2]) {
      await must(m, `${repo('1.37')} && ${KUBEADM_137}`);
      const r = await must(m, 'sudo kubeadm upgrade node');
      expect(r.stdout).toContain('[upgrade/control-plane] Upgrading your Static Pod-hosted control plane instance to version "v1.37.2"...');
      expect(r.stdout).toContain('[upgrade/staticpods] Component "kube-apiserver" upgraded successfully!');
      await must(m, KUBELET_137);
    }
    await must(m0, KUBELET_137);
    await expectApiservers([fresh, fresh, fresh]);
    // the three etcd members came through the API servers' restarts
    const members = await must(m2, 'sudo apt-get install -y etcd-client >/dev/null && sudo ETCDCTL_API=3 etcdctl --endpoints https://127.0.0.1:2379 --cacert /etc/kubernetes/pki/etcd/ca.crt --cert /etc/kubernetes/pki/etcd/healthcheck-client.crt --key /etc/kubernetes/pki/etcd/healthcheck-client.key member list');
    expect(members.stdout.trim().split('\n')).toHaveLength(3);
    const nodes = (await must(m0, `sudo kubectl ${ADMIN} get nodes`)).stdout;
    for (const m of masters) expect(nodes).toMatch(new RegExp(`${m.name}\\s+Ready\\s+control-plane\\s+\\S+\\s+v1\\.37\\.2`));
  });
});
