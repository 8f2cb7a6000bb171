/**
 * A real, throw-away Kubernetes API server for the PKI and client tests:
 * Debian's etcd and the built kube-apiserver on free loopback ports, in a
 * temporary directory, with a PKI made by cluster/pki (the API server's
 * serving certificate is issued by the cluster CA with issueServerCert).
 * Flags as shared/recipes/kube-apiserver.sh start_apiserver, plus bootstrap
 * token authentication and Node,RBAC authorization. stop() stops both and
 * removes the directory.
 *
 * Binaries: KUBE_APISERVER_BIN / KUBECTL_BIN, or <repo>/.tools/k8s/bin/
 * (where the toolchain build puts them); etcd from PATH (Debian
 * etcd-server, which scripts/install-test-deps.sh installs, run here when
 * etcd is missing and we are root).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type ClusterPki, adminPair, caPair, issueServerCert, kubeconfig, newClusterPki } from '../../cluster/pki';
import { freePort } from '../harness/ports';

const REPO = path.resolve(__dirname, '../..');
const INSTALL_SCRIPT = path.join(REPO, 'scripts/install-test-deps.sh');
const START_TIMEOUT_MS = 120_000;

export function kubeApiserverBin(): string {
  return process.env.KUBE_APISERVER_BIN || path.join(REPO, '.tools/k8s/bin/kube-apiserver');
}

export function kubectlBin(): string {
  return process.env.KUBECTL_BIN || path.join(REPO, '.tools/k8s/bin/kubectl');
}

function etcdBin(): string {
  const found = () => spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' }).stdout.trim();
  if (found()) return found();
  if (process.getuid?.() !== 0) throw new Error(`etcd is not installed: run as root bash ${INSTALL_SCRIPT} (Debian etcd-server)`);
  execFileSync('bash', [INSTALL_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
  if (!found()) throw new Error(`${INSTALL_SCRIPT} ran but etcd is still missing`);
  return found();
}

export interface KubectlResult { status: number; stdout: string; stderr: string }

export interface TestKubeApiserver {
  /** https://127.0.0.1:<port> */
  url: string;
  dir: string;
  pki: ClusterPki;
  /** A kubeconfig file with the PKI's admin certificate. */
  adminKubeconfig: string;
  /** Runs the built kubectl (with --kubeconfig, the admin's unless given). */
  kubectl(args: string[], o?: { kubeconfig?: string; input?: string }): KubectlResult;
  /** Writes a file into the server's directory (mode 0600) and returns its path. */
  writeFile(name: string, content: string): string;
  stop(): Promise<void>;
}

function waitForExit(p: ChildProcess, ms: number): Promise<boolean> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    p.once('exit', () => { clearTimeout(t); resolve(true); });
  });
}

async function stopProcess(p: ChildProcess | undefined): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  p.kill('SIGTERM');
  if (!(await waitForExit(p, 15_000))) {
    p.kill('SIGKILL');
    await waitForExit(p, 5_000);
  }
}

/** GETs `url` until it answers 200 (or the process dies, or time runs out). */
async function waitFor200(url: string, proc: ChildProcess, log: string, what: string, ca?: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${what} exited with ${proc.exitCode}:\n${fs.readFileSync(log, 'utf8').slice(-3000)}`);
    const status = await new Promise<number>((resolve) => {
      const lib = url.startsWith('https:') ? https : http;
      const req = lib.get(url, { ca, timeout: 2000 }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', () => resolve(0));
      req.on('timeout', () => req.destroy());
    });
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${what} did not answer 200 on ${url} within ${START_TIMEOUT_MS} ms:\n${fs.readFileSync(log, 'utf8').slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function startKubeApiserver(o: { clusterName?: string } = {}): Promise<TestKubeApiserver> {
  const apiserverBin = kubeApiserverBin();
  if (!fs.existsSync(apiserverBin)) throw new Error(`kube-apiserver not found at ${apiserverBin}: build it (shared/recipes/kube-apiserver.sh build) or set KUBE_APISERVER_BIN`);
  const etcd = etcdBin();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-apiserver-'));
  const writeFile = (name: string, content: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content, { mode: 0o600 });
    return file;
  };
  let etcdProc: ChildProcess | undefined;
  let apiProc: ChildProcess | undefined;
  const stop = async () => {
    await stopProcess(apiProc);
    await stopProcess(etcdProc);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const pki = await newClusterPki({ clusterName: o.clusterName ?? 'test-cluster' });
    const serving = await issueServerCert(caPair(pki), {
      cn: 'kube-apiserver',
      sans: ['127.0.0.1', '10.0.0.1', 'localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
    });
    const f = {
      ca: writeFile('ca.crt', pki.certs.kubernetesCa),
      cert: writeFile('apiserver.crt', serving.certPem),
      key: writeFile('apiserver.key', serving.keyPem),
      saPub: writeFile('sa.pub', pki.certs.serviceAccountPublicKey),
      saKey: writeFile('sa.key', pki.keys.serviceAccount),
    };
    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const etcdLog = path.join(dir, 'etcd.log');
    etcdProc = spawn(etcd, [
      '--name', 'test', '--data-dir', path.join(dir, 'etcd-data'),
      '--listen-client-urls', etcdUrl, '--advertise-client-urls', etcdUrl,
      '--listen-peer-urls', `http://127.0.0.1:${peerPort}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peerPort}`,
      '--initial-cluster', `test=http://127.0.0.1:${peerPort}`,
    ], { stdio: ['ignore', fs.openSync(etcdLog, 'a'), fs.openSync(etcdLog, 'a')] });
    await waitFor200(`${etcdUrl}/health`, etcdProc, etcdLog, 'etcd');
    const apiLog = path.join(dir, 'apiserver.log');
    apiProc = spawn(apiserverBin, [
      `--etcd-servers=${etcdUrl}`,
      // the default (lease) endpoint reconciler refuses a loopback --advertise-address
      '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', '--endpoint-reconciler-type=none',
      `--secure-port=${apiPort}`,
      `--tls-cert-file=${f.cert}`, `--tls-private-key-file=${f.key}`, `--client-ca-file=${f.ca}`,
      `--service-account-key-file=${f.saPub}`, `--service-account-signing-key-file=${f.saKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--authorization-mode=Node,RBAC', '--enable-bootstrap-token-auth=true',
    ], { stdio: ['ignore', fs.openSync(apiLog, 'a'), fs.openSync(apiLog, 'a')] });
    const url = `https://127.0.0.1:${apiPort}`;
    await waitFor200(`${url}/healthz`, apiProc, apiLog, 'kube-apiserver', pki.certs.kubernetesCa);
    const admin = adminPair(pki);
    const adminKubeconfig = writeFile('admin.kubeconfig', kubeconfig({
      clusterName: pki.clusterName, server: url, caPem: pki.certs.kubernetesCa, clientCertPem: admin.certPem, clientKeyPem: admin.keyPem,
    }));
    const kubectl = (args: string[], k: { kubeconfig?: string; input?: string } = {}): KubectlResult => {
      const r = spawnSync(kubectlBin(), ['--kubeconfig', k.kubeconfig ?? adminKubeconfig, ...args], { encoding: 'utf8', input: k.input, timeout: 60_000 });
      return { status: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? String(r.error ?? '') };
    };
    return { url, dir, pki, adminKubeconfig, kubectl, writeFile, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
