/**
 * A highly available control plane on the simulator's machines, made the way
 * Tacker's HA install script does it (kubeadm's own HA procedure): three
 * masters, `kubeadm init --control-plane-endpoint <endpoint> --upload-certs`
 * on the first, `kubeadm join --control-plane --certificate-key` on the
 * others, and a worker. Behind them: three real etcd members in one cluster
 * and three real kube-apiservers. A wrong certificate key is refused; one
 * master stopped leaves the API answering; `kubeadm reset` of a master takes
 * its etcd member out, and etcdctl on a surviving master removes the member
 * of one that is gone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'ssh2';
import { ensureKubeToolchain } from '../../runtime/kube';
import { processesUsing } from '@nfv-orchestrator/vimsim/kube/processes';
import { PUBLIC_NETWORK_ID, seedImageId } from '@nfv-orchestrator/vimsim/store/seed';
import { admin, CloudClient, startTestSim, type TestSim } from '../support/vimsim-helpers';
import { kubectlRun, must, nodeReadiness, put, sh, until } from '../support/vimsim-node-shell';
import { freePort, sshConnect } from '../support/vimsim-ssh-helpers';

const PASSWORD = 'Kube-ha-pw-1!';
const USER_DATA = `#cloud-config\npassword: ${PASSWORD}\nchpasswd: { expire: False }\nssh_pwauth: True\n`;
const MV = { 'X-OpenStack-Nova-API-Version': '2.96' };
const ENDPOINT_NAME = 'k8s-api.cluster.local';
const ETCDCTL = 'sudo ETCDCTL_API=3 etcdctl --endpoints https://127.0.0.1:2379 --cacert /etc/kubernetes/pki/etcd/ca.crt --cert /etc/kubernetes/pki/etcd/healthcheck-client.crt --key /etc/kubernetes/pki/etcd/healthcheck-client.key';

const toolchain = ensureKubeToolchain((m) => console.log(m));
interface Node { id: string; name: string; address: string; ssh: Client }

describe('vimsim Kubernetes HA control plane (stacked etcd, kubeadm join --control-plane)', () => {
  let sim: TestSim;
  let nova: CloudClient;
  let port: number;
  let tmp: string;
  let adminConf: string;
  const nodes: Node[] = [];

  const kubectl = (...args: string[]) => kubectlRun(toolchain.kubectl, adminConf, ...args);
  const readyNodes = () => nodeReadiness(toolchain.kubectl, adminConf);
  const members = async (n: Node): Promise<string[]> => (await must(n, `${ETCDCTL} member list`)).stdout.trim().split('\n').filter(Boolean);

  // addresses of their own: the control planes listen on fixed ports (6443, 2379, 2380) of them
  const boot = async (name: string, i: number): Promise<Node> => {
    const res = await nova.call('compute', 'POST', '/servers', {
      server: { name, imageRef: seedImageId('ubuntu-20.04'), flavorRef: '3', networks: [{ uuid: PUBLIC_NETWORK_ID, fixed_ip: `127.20.251.${10 + i}` }], user_data: Buffer.from(USER_DATA).toString('base64') },
    }, MV);
    expect(res.status).toBe(202);
    const s = (await nova.until('compute', `/servers/${res.body.server.id}`, (b) => b.server.status === 'ACTIVE', 10_000, MV)).server;
    const address = s.addresses.public[0].addr as string;
    return { id: s.id, name, address, ssh: (await sshConnect(address, port, 'ubuntu', { password: PASSWORD })).client };
  };

  /** docs/cluster-engine.md steps 1, 2 and 4, and the endpoint's name in /etc/hosts. */
  const prepare = async (n: Node, endpointAddress: string) => {
    await must(n, "sudo swapoff -a && sudo sed -i '/ swap / s/^\\(.*\\)$/#\\1/g' /etc/fstab && sudo modprobe overlay && sudo modprobe br_netfilter && sudo sysctl -w net.ipv4.ip_forward=1");
    await must(n, `echo '${endpointAddress} ${ENDPOINT_NAME}' | sudo tee -a /etc/hosts >/dev/null`);
    await must(n, 'sudo apt-get install -y containerd etcd-client');
    await put(n, '/etc/containerd/config.toml', 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n', '0600');
    await must(n, 'sudo systemctl restart containerd');
    await must(n, [
      'sudo mkdir -p -m 755 /etc/apt/keyrings',
      'curl -fsSL https://pkgs.k8s.io/core:/stable:/v1.37/deb/Release.key | sudo gpg --batch --yes --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg',
      "echo 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.37/deb/ /' | sudo tee /etc/apt/sources.list.d/kubernetes.list >/dev/null",
      'sudo apt-get update', 'sudo apt-get install -y kubelet=1.37.2-1.1 kubeadm=1.37.2-1.1 kubectl=1.37.2-1.1', 'sudo systemctl enable --now kubelet',
    ].join(' && '));
  };

  beforeAll(async () => {
    port = await freePort();
    sim = await startTestSim({ delayMs: 20, sshPort: port, kube: { apiserverBin: toolchain.kubeApiserver, etcdBin: toolchain.etcd, podBackoffMs: 500 } });
    nova = await CloudClient.connect(sim);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vimsim-kube-ha-'));
    for (const [i, name] of ['ha-master-0', 'ha-master-1', 'ha-master-2', 'ha-worker-0'].entries()) nodes.push(await boot(name, i));
  });

  afterAll(async () => {
    for (const n of nodes) n.ssh.end();
    const dir = sim ? path.join(sim.dataDir, 'vimsim', 'kube') : undefined;
    await sim?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    if (dir) expect(processesUsing(dir)).toEqual([]);
  });

  it('makes three control-plane nodes with one three-member etcd cluster, as kubeadm HA does', async () => {
    const [m0, m1, m2, w0] = nodes;
    await Promise.all(nodes.map((n) => prepare(n, m0.address)));
    const init = await must(m0, `sudo kubeadm init --pod-network-cidr=10.244.0.0/16 --service-cidr=10.96.0.0/12 --control-plane-endpoint ${ENDPOINT_NAME}:6443 --upload-certs`);
    expect(init.stdout).toContain('[upload-certs] Using certificate key:');
    const join = /kubeadm join \S+ --token (\S+) \\\n\t--discovery-token-ca-cert-hash (\S+) \\\n\t--control-plane --certificate-key ([0-9a-f]{64})/.exec(init.stdout);
    expect(join).not.toBeNull();
    const [, token, hash, key] = join!;
    // the certificate key never shows in the simulator's records
    const record = JSON.stringify((await admin(sim, 'GET', `/servers/${m0.id}/host`)).body);
    expect(record).not.toContain(key);

    // a wrong certificate key cannot read the CAs: nothing is started on that node
    const wrongKey = await sh(m1, `sudo kubeadm join ${ENDPOINT_NAME}:6443 --token ${token} --discovery-token-ca-cert-hash ${hash} --control-plane --certificate-key ${'0'.repeat(64)}`);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('error execution phase control-plane-prepare/download-certs: error downloading certs: error decoding secret data with provided key: cipher: message authentication failed');
    expect((await sh(m1, 'sudo ls /etc/kubernetes/manifests')).stdout).toBe('');

    for (const m of [m1, m2]) {
      const r = await must(m, `sudo kubeadm join ${ENDPOINT_NAME}:6443 --token ${token} --discovery-token-ca-cert-hash ${hash} --control-plane --certificate-key ${key}`);
      expect(r.stdout).toContain('This node has joined the cluster and a new control plane instance was created');
      expect(r.stdout).toContain('[etcd] Announced new etcd member joining to the existing etcd cluster');
    }
    await must(w0, `sudo kubeadm join ${ENDPOINT_NAME}:6443 --token ${token} --discovery-token-ca-cert-hash ${hash}`);

    // three voting members, one per master, each its own real process
    const list = await members(m2);
    expect(list).toHaveLength(3);
    for (const m of [m0, m1, m2]) expect(list.some((l) => l.includes(`, started, ${m.name}, https://${m.address}:2380,`) && !l.endsWith('true'))).toBe(true);
    expect((await must(m1, `${ETCDCTL} endpoint health`)).stdout).toMatch(/is healthy/);

    adminConf = path.join(tmp, 'admin.conf');
    const conf = (await must(m1, 'sudo cat /etc/kubernetes/admin.conf')).stdout;
    // the user's kubectl reaches the endpoint name through its address (as DNS would give it)
    fs.writeFileSync(adminConf, conf.replace(`https://${ENDPOINT_NAME}:6443`, `https://${m1.address}:6443`), { mode: 0o600 });
    const ready = await until('4 Ready nodes', async () => {
      const s = await readyNodes();
      return Object.values(s).filter((v) => v === 'True').length === 4 ? s : undefined;
    });
    expect(Object.keys(ready).sort()).toEqual(['ha-master-0', 'ha-master-1', 'ha-master-2', 'ha-worker-0']);
    const wide = (await kubectl('get', 'nodes')).out;
    for (const m of ['ha-master-0', 'ha-master-1', 'ha-master-2']) expect(wide).toMatch(new RegExp(`${m}\\s+Ready\\s+control-plane`));
    // every master runs its own API server and etcd
    const etcdPods = ['ha-master-0', 'ha-master-1', 'ha-master-2'].map((m) => `pod/etcd-${m}`);
    await until('an etcd mirror pod per master', async () => {
      const pods = (await kubectl('get', 'pods', '-n', 'kube-system', '-o', 'name')).out;
      return etcdPods.every((p) => pods.includes(p)) ? true : undefined;
    }, 30_000);
  });

  it('keeps answering with one master of three stopped: etcd keeps its quorum', async () => {
    const [m0, m1] = nodes;
    expect((await nova.call('compute', 'POST', `/servers/${m0.id}/action`, { 'os-stop': null }, MV)).status).toBe(202);
    await nova.until('compute', `/servers/${m0.id}`, (b) => b.server.status === 'SHUTOFF', 10_000, MV);
    // a write through another master's API server needs the etcd quorum of the two left
    const made = await until('a write with one master down', async () => ((await kubectl('create', 'namespace', 'after-stop')).code === 0 ? true : undefined), 30_000);
    expect(made).toBe(true);
    expect((await kubectl('get', 'namespace', 'after-stop', '-o', 'name')).out.trim()).toBe('namespace/after-stop');
    // the stopped master's etcd is gone (its process stops with the server)
    const health = await until('the stopped member unhealthy', async () => {
      const r = await sh(m1, `${ETCDCTL} --endpoints https://${m0.address}:2379,https://127.0.0.1:2379 endpoint health`);
      return r.stderr.includes(`https://${m0.address}:2379 is unhealthy`) ? r : undefined;
    }, 20_000);
    expect(health.code).toBe(1);
    expect(health.stdout).toContain('https://127.0.0.1:2379 is healthy');
  });

  it('removes the member of a gone master with etcdctl, and kubeadm reset takes its own member out', async () => {
    const [m0, m1, m2] = nodes;
    const gone = (await members(m1)).find((l) => l.includes(`, ${m0.name}, `))!;
    const id = gone.split(',')[0];
    // etcd refuses a removal until the members left have been connected a while ("unhealthy cluster"): an operator retries
    const removed = await until('the member removed', async () => {
      const r = await sh(m1, `${ETCDCTL} member remove ${id}`);
      if (r.code !== 0) expect(r.stderr).toBe('Error: etcdserver: unhealthy cluster\n');
      return r.code === 0 ? r : undefined;
    }, 30_000);
    expect(removed.stdout).toBe(`Member ${id} removed from cluster\n`);
    expect(await members(m1)).toHaveLength(2);
    // m2 leaves cleanly: its member goes, m1 alone is a working one-member cluster (the endpoint's name now points at m1, as DNS would)
    await must(m2, `sudo sed -i 's/^${m0.address} ${ENDPOINT_NAME}$/${m1.address} ${ENDPOINT_NAME}/' /etc/hosts`);
    const reset = await must(m2, 'sudo kubeadm reset -f');
    expect(reset.stdout).toMatch(/\[reset\] Removed member [0-9a-f]+ \(ha-master-2\) from the etcd cluster/);
    const left = await members(m1);
    expect(left).toHaveLength(1);
    expect(left[0]).toContain(', ha-master-1, ');
    await until('a write on the one member left', async () => ((await kubectl('create', 'namespace', 'after-reset')).code === 0 ? true : undefined), 30_000);
  });
});
