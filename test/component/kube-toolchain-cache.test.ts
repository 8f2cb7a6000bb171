/**
 * The Kubernetes toolchain is built once and then found (runtime/kube): with
 * every binary in the tools folder answering its version, nothing is built;
 * one of another version is the only one to build again. The binaries here
 * are scripts that print what the real ones print for --version.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let dir: string;
const saved = { tools: process.env.KUBE_TOOLS_DIR, etcd: process.env.VIMSIM_ETCD };

function fake(file: string, output: string): void {
  fs.writeFileSync(path.join(dir, 'bin', file), `#!/bin/sh\necho '${output}'\n`, { mode: 0o755 });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-tools-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  fake('kube-apiserver', 'Kubernetes v1.37.2');
  fake('kubectl', 'Client Version: v1.37.2');
  fake('kube-apiserver-v1.36.3', 'Kubernetes v1.36.3');
  fake('etcd', 'etcd Version: 3.5');
  process.env.KUBE_TOOLS_DIR = dir;
  process.env.VIMSIM_ETCD = path.join(dir, 'bin', 'etcd');
});

afterAll(() => {
  for (const [k, v] of [['KUBE_TOOLS_DIR', saved.tools], ['VIMSIM_ETCD', saved.etcd]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

/** runtime/kube as loaded with this test's tools folder (it reads KUBE_TOOLS_DIR once). */
function kube(): typeof import('../../runtime/kube') {
  let m: typeof import('../../runtime/kube') | undefined;
  jest.isolateModules(() => { m = require('../../runtime/kube'); });
  return m!;
}

test('a built toolchain is found, not built again: v1.37.2 and v1.36.3 at their paths, nothing logged', () => {
  const k = kube();
  expect(k.kubeToolchainReady()).toBe(true);
  const logged: string[] = [];
  const t = k.ensureKubeToolchain((m) => logged.push(m));
  expect(logged).toEqual([]);
  expect(t).toMatchObject({
    kubeApiserver: path.join(dir, 'bin', 'kube-apiserver'), kubectl: path.join(dir, 'bin', 'kubectl'), version: 'v1.37.2',
    kubeApiservers: { 'v1.37.2': path.join(dir, 'bin', 'kube-apiserver'), 'v1.36.3': path.join(dir, 'bin', 'kube-apiserver-v1.36.3') },
  });
});

test('a binary of another version is the only one to build again', () => {
  fake('kube-apiserver-v1.36.3', 'Kubernetes v1.36.2');
  const k = kube();
  expect(k.kubeToolchainReady()).toBe(false);
  expect(k.missingBinaries(path.join(dir, 'bin')).map((t) => `${t.file} ${t.version}`)).toEqual(['kube-apiserver-v1.36.3 v1.36.3']);
});
