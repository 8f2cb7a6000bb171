/**
 * The simulator's Kubernetes against a real kube-apiserver: four Nova servers
 * (a master, two workers, a registry), over real SSH the steps of
 * docs/cluster-engine.md section 2 as the product runs them, with a PKI made
 * here; then the real kubectl with an admin certificate of that PKI sees
 * three Ready nodes. Also: kubeadm's preflight errors, a wrong discovery hash
 * and a wrong token failing join, the API stopping and starting with its
 * manifest, a stopped worker going NotReady and a deleted one losing its
 * Node, a CA rotation (old certificates get 401, new ones work), and a
 * deleted master leaving no process and no file behind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'ssh2';
import { ensureKubeToolchain } from '../../runtime/kube';
import { readState } from '../harness/state';
import { processesUsing } from '@nfv-orchestrator/vimsim/kube/processes';
import { PUBLIC_NETWORK_ID, seedImageId } from '@nfv-orchestrator/vimsim/store/seed';
import { caHash, clientCert, kubeconfig, makeClusterPki, type ClusterPki } from '../support/kube-pki';
import { admin, CloudClient, startTestSim, type TestSim } from '../support/vimsim-helpers';
import { kubectlRun, must, nodeReadiness, put, sh, until } from '../support/vimsim-node-shell';
import { freePort, sshConnect } from '../support/vimsim-ssh-helpers';

const PASSWORD = 'Kube-pw-1!';
const USER_DATA = `#cloud-config\npassword: ${PASSWORD}\nchpasswd: { expire: False }\nssh_pwauth: True\n`;
const MV = { 'X-OpenStack-Nova-API-Version': '2.96' };
const TOKEN = 'k8sjn1.0123456789abcdef';

const toolchain = ensureKubeToolchain((m) => console.log(m));
interface Node { id: string; name: string; address: string; ssh: Client }

describe('vimsim Kubernetes (real kube-apiserver and etcd)', () => {
  let sim: TestSim;
  let nova: CloudClient;
  let port: number;
  let tmp: string;
  let pki: ClusterPki;
  let adminConf: string;
  const nodes: Record<string, Node> = {};

  const kubectl = (conf: string, ...args: string[]) => kubectlRun(toolchain.kubectl, conf, ...args);
  const nodeStatus = (conf: string) => nodeReadiness(toolchain.kubectl, conf);
  // Addresses of their own, far above the first ones the harness's simulator hands out from the same pool: the
  // control planes listen on fixed ports (6443, 2379) of them, beside the clusters of e2e files running meanwhile.
  let booted = 0;
  const boot = async (name: string): Promise<Node> => {
    const fixedIp = `127.20.250.${10 + booted++}`;
    const res = await nova.call('compute', 'POST', '/servers', {
      server: { name, imageRef: seedImageId('ubuntu-20.04'), flavorRef: '3', networks: [{ uuid: PUBLIC_NETWORK_ID, fixed_ip: fixedIp }], user_data: Buffer.from(USER_DATA).toString('base64') },
    }, MV);
    expect(res.status).toBe(202);
    const s = (await nova.until('compute', `/servers/${res.body.server.id}`, (b) => b.server.status === 'ACTIVE', 10_000, MV)).server;
    const address = s.addresses.public[0].addr as string;
    return { id: s.id, name, address, ssh: (await sshConnect(address, port, 'ubuntu', { password: PASSWORD })).client };
  };
  const kubeDir = () => path.join(sim.dataDir, 'vimsim', 'kube');

  beforeAll(async () => {
    port = await freePort();
    sim = await startTestSim({ delayMs: 20, sshPort: port, kube: { apiserverBin: toolchain.kubeApiserver, etcdBin: toolchain.etcd, podBackoffMs: 1000 } });
    nova = await CloudClient.connect(sim);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vimsim-kube-'));
    pki = await makeClusterPki();
    for (const [key, name] of [['master', 'kube-master-0'], ['worker1', 'kube-worker-1'], ['worker2', 'kube-worker-2'], ['registry', 'kube-registry']]) nodes[key] = await boot(name);
  });

  afterAll(async () => {
    for (const n of Object.values(nodes)) n.ssh.end();
    const dir = sim ? kubeDir() : undefined;
    await sim?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    // the machine as we found it: no control-plane process and no file left
    if (dir) {
      expect(processesUsing(dir)).toEqual([]);
      expect(fs.existsSync(dir)).toBe(false);
    }
  });

  const KUBE_REPO = [
    'sudo mkdir -p -m 755 /etc/apt/keyrings',
    'curl -fsSL https://pkgs.k8s.io/core:/stable:/v1.37/deb/Release.key | sudo gpg --batch --yes --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg',
    "echo 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.37/deb/ /' | sudo tee /etc/apt/sources.list.d/kubernetes.list >/dev/null",
    'sudo apt-get update',
  ].join(' && ');

  it('installs nothing from pkgs.k8s.io before the repository is added, then only the versions it has', async () => {
    const m = nodes.master;
    const none = await sh(m, 'sudo apt-get install -y kubelet=1.37.2-1.1');
    expect(none).toMatchObject({ code: 100, stderr: expect.stringContaining('E: Unable to locate package kubelet') });
    await must(m, KUBE_REPO);
    const wrong = await sh(m, 'sudo apt-get install -y kubelet=1.37.9-1.1');
    expect(wrong).toMatchObject({ code: 100, stderr: expect.stringContaining("E: Version '1.37.9-1.1' for 'kubelet' was not found") });
  });

  it('preflight fails as kubeadm v1.37 does on a node nobody prepared', async () => {
    const m = nodes.master;
    await must(m, 'sudo apt-get install -y kubelet=1.37.2-1.1 kubeadm=1.37.2-1.1 kubectl=1.37.2-1.1 && sudo apt-mark hold kubelet kubeadm kubectl');
    expect((await must(m, 'kubeadm version -o short')).stdout).toBe('v1.37.2\n');
    const r = await sh(m, 'sudo kubeadm init');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[WARNING Swap]: swap is supported for cgroup v2 only');
    expect(r.stderr).toContain('[ERROR CRI]: container runtime is not running');
    expect(r.stderr).toContain('[ERROR FileContent--proc-sys-net-ipv4-ip_forward]: /proc/sys/net/ipv4/ip_forward contents are not set to 1');
    expect(r.stderr).toContain('error execution phase preflight: preflight checks failed');
    // with the runtime and forwarding but swap still on, the kubelet refuses to start and init stops there
    await must(m, 'sudo apt-get install -y containerd && sudo sysctl -w net.ipv4.ip_forward=1');
    const swap = await sh(m, 'sudo kubeadm init');
    expect(swap.code).toBe(1);
    expect(swap.stderr).toContain('error execution phase wait-control-plane: failed while waiting for the kubelet to start');
    expect((await sh(m, 'systemctl is-active kubelet')).stdout).toBe('activating\n');
    await must(m, 'sudo kubeadm reset -f');
  });

  it('runs the contract steps 1-7: one master, two workers, three Ready nodes for the real kubectl', async () => {
    const reg = nodes.registry;
    // a private registry with basic auth on another server (step 3 checks it)
    await must(reg, 'sudo apt-get install -y docker-ce');
    await put(reg, '/opt/auth/htpasswd', 'puller:$2y$05$abcdefghijklmnopqrstuuTJdjHx4UmyG2CJy6v8sE1b3yT7mK2Pa\n');
    await must(reg, 'sudo docker run -d -p 5000:5000 --name registry -e REGISTRY_AUTH=htpasswd -e REGISTRY_AUTH_HTPASSWD_REALM=Registry -e REGISTRY_AUTH_HTPASSWD_PATH=/auth/htpasswd -v /opt/auth:/auth registry:2');
    const registry = `${reg.address}:5000`;
    for (const key of ['master', 'worker1', 'worker2']) {
      const n = nodes[key];
      // 1. prepare
      await must(n, "sudo swapoff -a && sudo sed -i '/ swap / s/^\\(.*\\)$/#\\1/g' /etc/fstab");
      await put(n, '/etc/modules-load.d/k8s.conf', 'overlay\nbr_netfilter\n');
      await must(n, 'sudo modprobe overlay && sudo modprobe br_netfilter');
      await put(n, '/etc/sysctl.d/99-kubernetes-cri.conf', 'net.bridge.bridge-nf-call-iptables = 1\nnet.bridge.bridge-nf-call-ip6tables = 1\nnet.ipv4.ip_forward = 1\n');
      expect((await must(n, 'sudo sysctl --system')).stdout).toContain('net.ipv4.ip_forward = 1');
      await must(n, `grep -qxF '${reg.address} registry.local' /etc/hosts || echo '${reg.address} registry.local' | sudo tee -a /etc/hosts >/dev/null`);
      await put(n, '/etc/apt/apt.conf.d/proxy.conf', 'Acquire::http::Proxy "http://proxy.example:3128";\n');
      // 2. container runtime
      await must(n, 'sudo apt-get install -y containerd');
      await put(n, '/etc/containerd/config.toml', [
        'version = 2', '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]', '  SystemdCgroup = true',
        '[plugins."io.containerd.grpc.v1.cri".registry]', '  config_path = "/etc/containerd/certs.d"',
        `[plugins."io.containerd.grpc.v1.cri".registry.configs."${registry}".auth]`, '  username = "puller"', '  password = "pull-secret"', '',
      ].join('\n'), '0600');
      await put(n, '/etc/systemd/system/containerd.service.d/http-proxy.conf', '[Service]\nEnvironment="HTTP_PROXY=http://proxy.example:3128" "NO_PROXY=127.0.0.0/8"\n');
      await must(n, 'sudo systemctl daemon-reload && sudo systemctl enable containerd && sudo systemctl restart containerd');
      expect((await must(n, 'systemctl is-active containerd')).stdout).toBe('active\n');
      // 3. private registry
      await put(n, `/etc/containerd/certs.d/${registry}/hosts.toml`, `server = "http://${registry}"\n\n[host."http://${registry}"]\n  capabilities = ["pull", "resolve"]\n  skip_verify = true\n`);
      expect((await must(n, `curl -sS -o /dev/null -w '%{http_code}' http://${registry}/v2/`)).stdout).toBe('401');
      expect((await must(n, `curl -sS -o /dev/null -w '%{http_code}' --config - http://${registry}/v2/`, 'user = "puller:pull-secret"\n')).stdout).toBe('200');
      // 4. Kubernetes packages
      if (key !== 'master') await must(n, KUBE_REPO);
      await must(n, 'sudo apt-get install -y kubelet=1.37.2-1.1 kubeadm=1.37.2-1.1 kubectl=1.37.2-1.1 && sudo apt-mark hold kubelet kubeadm kubectl');
      await put(n, '/etc/systemd/system/kubelet.service.d/http-proxy.conf', '[Service]\nEnvironment="NO_PROXY=127.0.0.0/8"\n');
      await must(n, 'sudo systemctl daemon-reload && sudo systemctl enable --now kubelet');
    }
    // 5. the PKI
    const m = nodes.master;
    for (const [file, text, mode] of [
      ['ca.crt', pki.ca.certPem, '0644'], ['ca.key', pki.ca.keyPem, '0600'], ['front-proxy-ca.crt', pki.frontProxy.certPem, '0644'], ['front-proxy-ca.key', pki.frontProxy.keyPem, '0600'],
      ['etcd/ca.crt', pki.etcd.certPem, '0644'], ['etcd/ca.key', pki.etcd.keyPem, '0600'], ['sa.key', pki.saKey, '0600'], ['sa.pub', pki.saPub, '0644'],
    ]) await put(m, `/etc/kubernetes/pki/${file}`, text, mode);
    // 6. kubeadm init
    await put(m, '/etc/kubernetes/kubeadm-config.yaml', initConfig(m.address), '0600');
    const t0 = Date.now();
    const init = await must(m, 'sudo kubeadm init --config /etc/kubernetes/kubeadm-config.yaml');
    console.log(`kubeadm init: ${Date.now() - t0} ms`);
    expect(init.stdout).toContain('Your Kubernetes control-plane has initialized successfully!');
    expect(init.stdout).toContain(`--discovery-token-ca-cert-hash ${await caHash(pki.ca)}`);
    adminConf = path.join(tmp, 'admin.conf');
    fs.writeFileSync(adminConf, kubeconfig(`https://${m.address}:6443`, pki.ca.certPem, 'product-admin', await clientCert(pki.ca, 'nfv-product', 'system:masters')), { mode: 0o600 });
    expect((await kubectl(adminConf, 'get', '--raw', '/healthz')).out).toBe('ok');
    // 7. join: a bootstrap token made through the API, as the product does
    const [id, secret] = TOKEN.split('.');
    const tokenSecret = { apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token', metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
      stringData: { 'token-id': id, 'token-secret': secret, expiration: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z'), 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true', 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token' } };
    fs.writeFileSync(path.join(tmp, 'token.json'), JSON.stringify(tokenSecret));
    expect((await kubectl(adminConf, 'create', '-f', path.join(tmp, 'token.json'))).code).toBe(0);
    const hash = await caHash(pki.ca);
    const w1 = nodes.worker1;
    await put(w1, '/etc/kubernetes/kubeadm-join.yaml', joinConfig(m.address, 'kube-worker-1', TOKEN, hash), '0600');
    await must(w1, 'sudo kubeadm join --config /etc/kubernetes/kubeadm-join.yaml');
    expect((await must(w1, 'sudo ls /var/lib/kubelet/pki/ && sudo grep -c client-certificate /etc/kubernetes/kubelet.conf')).stdout).toContain('kubelet-client-current.pem');
  });

  it('refuses a join with a wrong discovery hash, and one with a wrong token at the real API server', async () => {
    const w2 = nodes.worker2;
    const m = nodes.master;
    await put(w2, '/etc/kubernetes/kubeadm-join.yaml', joinConfig(m.address, 'kube-worker-2', TOKEN, `sha256:${'0'.repeat(64)}`), '0600');
    const badHash = await sh(w2, 'sudo kubeadm join --config /etc/kubernetes/kubeadm-join.yaml');
    expect(badHash.code).toBe(1);
    expect(badHash.stderr).toContain(`couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${await caHash(pki.ca)}" are pinned`);
    await put(w2, '/etc/kubernetes/kubeadm-join.yaml', joinConfig(m.address, 'kube-worker-2', 'zzzzzz.0123456789abcdef', await caHash(pki.ca)), '0600');
    const badToken = await sh(w2, 'sudo kubeadm join --config /etc/kubernetes/kubeadm-join.yaml');
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toContain('error execution phase preflight: unable to fetch the kubeadm-config ConfigMap: failed to get config map: Unauthorized');
    await put(w2, '/etc/kubernetes/kubeadm-join.yaml', joinConfig(m.address, 'kube-worker-2', TOKEN, await caHash(pki.ca)), '0600');
    await must(w2, 'sudo kubeadm join --config /etc/kubernetes/kubeadm-join.yaml');
    const ready = await until('3 Ready nodes', async () => {
      const s = await nodeStatus(adminConf);
      return Object.values(s).filter((v) => v === 'True').length === 3 ? s : undefined;
    });
    expect(ready).toEqual({ 'kube-master-0': 'True', 'kube-worker-1': 'True', 'kube-worker-2': 'True' });
    const wide = await kubectl(adminConf, 'get', 'nodes', '-o', 'wide');
    expect(wide.out).toMatch(new RegExp(`kube-worker-1\\s+Ready\\s+<none>.*v1\\.37\\.2\\s+${nodes.worker1.address.replace(/\./g, '\\.')}`));
    expect(wide.out).toMatch(/kube-master-0\s+Ready\s+control-plane/);
    // the simulator's own records never show a bootstrap token's secret
    const host = (await admin(sim, 'GET', `/servers/${w2.id}/host`)).body;
    expect(JSON.stringify(host)).not.toContain(TOKEN.split('.')[1]);
  });

  it('has mirror pods of the static pods, schedules pods onto workers, reports them Running and drains a node', async () => {
    const pods = async () => (JSON.parse((await kubectl(adminConf, 'get', 'pods', '-A', '-o', 'json')).out).items as { metadata: { name: string; namespace: string; annotations?: Record<string, string> }; spec: { nodeName?: string }; status: { phase: string } }[]);
    const mirrors = (await until('the mirror pods', async () => {
      const m = (await pods()).filter((p) => p.metadata.annotations?.['kubernetes.io/config.mirror']);
      return m.length === 4 ? m : undefined;
    })).map((p) => p.metadata.name).sort();
    expect(mirrors).toEqual(['etcd-kube-master-0', 'kube-apiserver-kube-master-0', 'kube-controller-manager-kube-master-0', 'kube-scheduler-kube-master-0']);
    const manifest = path.join(tmp, 'pods.json');
    fs.writeFileSync(manifest, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [1, 2].map((i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${i}`, namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } })) }));
    // the namespace's default ServiceAccount comes from the controller-manager, as on a real cluster
    await until('the pods admitted', async () => ((await kubectl(adminConf, 'apply', '-f', manifest)).code === 0 ? true : undefined), 20_000);
    const placed = await until('the pods Running', async () => {
      const web = (await pods()).filter((p) => p.metadata.name.startsWith('web-'));
      return web.length === 2 && web.every((p) => p.status.phase === 'Running') ? web.map((p) => p.spec.nodeName) : undefined;
    }, 20_000);
    expect(placed.sort()).toEqual(['kube-worker-1', 'kube-worker-2']); // not the tainted master; spread
    const drain = await kubectl(adminConf, 'drain', 'kube-worker-1', '--ignore-daemonsets', '--force', '--timeout=30s');
    expect(drain).toEqual({ code: 0, out: expect.stringContaining('node/kube-worker-1 drained') });
    expect((await pods()).filter((p) => p.spec.nodeName === 'kube-worker-1')).toEqual([]);
    expect((await kubectl(adminConf, 'uncordon', 'kube-worker-1')).code).toBe(0);
  });

  it('stops the API server when its manifest is moved out and starts it when it is back', async () => {
    const m = nodes.master;
    await must(m, 'sudo mkdir -p /root/manifests-out && sudo mv /etc/kubernetes/manifests/kube-apiserver.yaml /root/manifests-out/');
    let t0 = Date.now();
    try {
      // until the process is gone: on a busy machine the API may first answer 500 (its etcd check slow)
      const refused = `The connection to the server ${m.address}:6443 was refused`;
      await until('the API refusing connections', async () => {
        const r = await kubectl(adminConf, 'get', '--raw', '/healthz');
        return r.code !== 0 && r.out.includes(refused) ? true : undefined;
      });
    } finally {
      // back whatever happened above: the next tests need the API
      t0 = Date.now();
      await must(m, 'sudo mv /root/manifests-out/kube-apiserver.yaml /etc/kubernetes/manifests/');
    }
    await until('the API back', async () => ((await kubectl(adminConf, 'get', '--raw', '/healthz')).out === 'ok' ? true : undefined));
    console.log(`kube-apiserver back (manifest in → /healthz 200): ${Date.now() - t0} ms`);
    const kube = (await admin(sim, 'GET', `/servers/${m.id}/kube`)).body;
    const pids = kube.pods.filter((p: { pid?: number }) => p.pid).map((p: { name: string; pid: number }) => p.pid);
    const rss = pids.map((pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0));
    console.log(`control plane RSS (etcd, kube-apiserver): ${rss.map((k: number) => `${Math.round(k / 1024)} MB`).join(', ')}`);
  });

  it('makes a stopped worker NotReady and removes the Node of a deleted one', async () => {
    const w2 = nodes.worker2;
    expect((await nova.call('compute', 'POST', `/servers/${w2.id}/action`, { 'os-stop': null }, MV)).status).toBe(202);
    const t0 = Date.now();
    await until('kube-worker-2 NotReady', async () => ((await nodeStatus(adminConf))['kube-worker-2'] === 'Unknown' ? true : undefined));
    console.log(`stopped worker NotReady after ${Date.now() - t0} ms (grace period 5 s)`);
    const taints = await until('the unreachable and shutdown taints', async () => {
      const keys = (JSON.parse((await kubectl(adminConf, 'get', 'node', 'kube-worker-2', '-o', 'json')).out).spec.taints ?? []).map((t: { key: string }) => t.key);
      return keys.includes('node.cloudprovider.kubernetes.io/shutdown') ? keys : undefined;
    });
    expect(taints).toEqual(expect.arrayContaining(['node.kubernetes.io/unreachable', 'node.cloudprovider.kubernetes.io/shutdown']));
    expect((await nova.call('compute', 'DELETE', `/servers/${w2.id}`, undefined, MV)).status).toBe(204);
    await until('kube-worker-2 gone', async () => ((await nodeStatus(adminConf))['kube-worker-2'] === undefined ? true : undefined));
    w2.ssh.end();
    delete nodes.worker2;
  });

  it('rotates the CAs: old certificates get 401, new ones work, the nodes are Ready again', async () => {
    const m = nodes.master;
    const w1 = nodes.worker1;
    const next = await makeClusterPki();
    // master: new CAs and keys, leaf certificates and kubeconfigs made again, control plane restarted
    await must(m, 'cd /etc/kubernetes/pki && sudo rm -f apiserver.* apiserver-kubelet-client.* apiserver-etcd-client.* front-proxy-client.* etcd/server.* etcd/peer.* etcd/healthcheck-client.* && cd /etc/kubernetes && sudo rm -f admin.conf super-admin.conf controller-manager.conf scheduler.conf kubelet.conf');
    for (const [file, text, mode] of [
      ['ca.crt', next.ca.certPem, '0644'], ['ca.key', next.ca.keyPem, '0600'], ['front-proxy-ca.crt', next.frontProxy.certPem, '0644'], ['front-proxy-ca.key', next.frontProxy.keyPem, '0600'],
      ['etcd/ca.crt', next.etcd.certPem, '0644'], ['etcd/ca.key', next.etcd.keyPem, '0600'], ['sa.key', next.saKey, '0600'], ['sa.pub', next.saPub, '0644'],
    ]) await put(m, `/etc/kubernetes/pki/${file}`, text, mode);
    await must(m, 'sudo kubeadm init phase certs all --config /etc/kubernetes/kubeadm-config.yaml && sudo kubeadm init phase kubeconfig all --config /etc/kubernetes/kubeadm-config.yaml');
    await must(m, 'sudo mkdir -p /root/manifests-out && sudo mv /etc/kubernetes/manifests/*.yaml /root/manifests-out/');
    await until('the API down', async () => ((await kubectl(adminConf, 'get', '--raw', '/healthz')).code !== 0 ? true : undefined));
    await must(m, 'sudo mv /root/manifests-out/*.yaml /etc/kubernetes/manifests/ && sudo systemctl restart kubelet');
    // worker: the new CA and a kubelet.conf with a client certificate of it (the product makes both)
    await put(w1, '/etc/kubernetes/pki/ca.crt', next.ca.certPem);
    await put(w1, '/etc/kubernetes/kubelet.conf', kubeconfig(`https://${m.address}:6443`, next.ca.certPem, 'system:node:kube-worker-1', await clientCert(next.ca, 'system:node:kube-worker-1', 'system:nodes')), '0600');
    // the master's API already trusts only the new CA: a lease renewed after this instant was renewed with the new certificate
    const kubeletRestarted = Date.now();
    await must(w1, 'sudo rm -f /var/lib/kubelet/pki/kubelet-client-* && sudo systemctl restart kubelet');
    const newAdmin = path.join(tmp, 'admin-new.conf');
    fs.writeFileSync(newAdmin, kubeconfig(`https://${m.address}:6443`, next.ca.certPem, 'product-admin', await clientCert(next.ca, 'nfv-product', 'system:masters')), { mode: 0o600 });
    const ready = await until('both nodes Ready with the new CA', async () => {
      const s = await nodeStatus(newAdmin);
      return s['kube-master-0'] === 'True' && s['kube-worker-1'] === 'True' ? s : undefined;
    }, 90_000);
    expect(Object.keys(ready).sort()).toEqual(['kube-master-0', 'kube-worker-1']);
    // the old admin certificate, trusting the new CA: 401; the old CA does not verify the server any more
    const oldCertNewCa = path.join(tmp, 'admin-old-cert.conf');
    fs.writeFileSync(oldCertNewCa, fs.readFileSync(adminConf, 'utf8').replace(/certificate-authority-data: .*/, `certificate-authority-data: ${Buffer.from(next.ca.certPem).toString('base64')}`));
    expect(await kubectl(oldCertNewCa, 'get', 'nodes')).toEqual({ code: 1, out: expect.stringContaining('error: You must be logged in to the server (Unauthorized)') });
    expect((await kubectl(adminConf, 'get', 'nodes')).out).toContain('x509: certificate signed by unknown authority');
    // and the worker's kubelet uses the certificate it was given: its lease renews
    // (a wait, not an age bound: the renewal period is 10 s, so a lease read at any instant may be up to 10 s old and more under load)
    const renewed = await until('the worker lease renewed since its kubelet restarted', async () => {
      const lease = JSON.parse((await kubectl(newAdmin, 'get', 'lease', '-n', 'kube-node-lease', 'kube-worker-1', '-o', 'json')).out);
      return Date.parse(lease.spec.renewTime) > kubeletRestarted ? lease.spec.holderIdentity : undefined;
    }, 30_000);
    expect(renewed).toBe('kube-worker-1');
    adminConf = newAdmin;
  });

  it('stops the control plane of a deleted master: no process, no file', async () => {
    const m = nodes.master;
    const before = (await admin(sim, 'GET', `/servers/${m.id}/kube`)).body;
    const pids: number[] = before.pods.filter((p: { pid?: number }) => p.pid).map((p: { pid: number }) => p.pid);
    expect(pids).toHaveLength(2);
    expect((await nova.call('compute', 'DELETE', `/servers/${m.id}`, undefined, MV)).status).toBe(204);
    await until('the master gone', async () => ((await nova.call('compute', 'GET', `/servers/${m.id}`, undefined, MV)).status === 404 ? true : undefined));
    await until('its processes gone', async () => (pids.every((pid) => !fs.existsSync(`/proc/${pid}/cmdline`) || fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === '') ? true : undefined), 20_000);
    expect(processesUsing(kubeDir())).toEqual([]);
    expect(fs.existsSync(path.join(kubeDir(), m.id))).toBe(false);
    m.ssh.end();
    delete nodes.master;
  });
});

describe('the harness simulator', () => {
  it('was started with the Kubernetes toolchain (runtime/cloud.ts passes VIMSIM_KUBE_APISERVER and VIMSIM_ETCD)', () => {
    const { pids } = readState();
    const env = fs.readFileSync(`/proc/${pids.vimsim}/environ`, 'utf8').split('\0');
    expect(env).toEqual(expect.arrayContaining([`VIMSIM_KUBE_APISERVER=${toolchain.kubeApiserver}`, `VIMSIM_ETCD=${toolchain.etcd}`]));
  });
});

describe('vimsim Kubernetes after a killed simulator', () => {
  it('kills the control-plane processes a killed simulator left on its data directory before it serves', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vimsim-kube-reap-'));
    const dir = path.join(dataDir, 'vimsim', 'kube', 'srv-left-behind');
    fs.mkdirSync(dir, { recursive: true });
    // an etcd as a simulator killed with -9 leaves it: running, holding its ports, its pid recorded
    const { spawn } = await import('node:child_process');
    const etcd = spawn(toolchain.etcd, ['--name', 'left', `--data-dir=${dir}/data`, '--listen-client-urls=http://127.30.250.1:2379', '--advertise-client-urls=http://127.30.250.1:2379', '--listen-peer-urls=http://127.30.250.1:2380', '--initial-advertise-peer-urls=http://127.30.250.1:2380', '--initial-cluster=left=http://127.30.250.1:2380'], { stdio: 'ignore', detached: true });
    fs.writeFileSync(path.join(dir, 'etcd.pid'), String(etcd.pid));
    const exited = new Promise((r) => etcd.once('exit', r));
    await new Promise((r) => setTimeout(r, 500));
    expect(processesUsing(path.join(dataDir, 'vimsim', 'kube'))).toEqual([etcd.pid]);
    const sim = await startTestSim({ dataDir, sshPort: 0, kube: { apiserverBin: toolchain.kubeApiserver, etcdBin: toolchain.etcd } });
    try {
      await exited;
      expect(fs.existsSync(dir)).toBe(false);
    } finally {
      await sim.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function initConfig(address: string): string {
  return `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: ${address}
  bindPort: 6443
nodeRegistration:
  name: kube-master-0
  criSocket: unix:///run/containerd/containerd.sock
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
controlPlaneEndpoint: ${address}:6443
networking:
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
apiServer:
  certSANs: [${address}]
controllerManager:
  extraArgs:
  - name: node-monitor-grace-period
    value: 5s
  - name: node-monitor-period
    value: 1s
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
# a Lease renewed every second (nodeLeaseDurationSeconds / 4), so a stopped node goes NotReady within the 5 s grace period
nodeLeaseDurationSeconds: 4
`;
}

function joinConfig(master: string, name: string, token: string, hash: string): string {
  return `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: ${master}:6443
    token: ${token}
    caCertHashes: [${hash}]
nodeRegistration:
  name: ${name}
  criSocket: unix:///run/containerd/containerd.sock
`;
}
