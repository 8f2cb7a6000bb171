/**
 * What a simulated machine's containerd can pull (vimsim/kube/runtime.ts): the
 * control-plane images are there once their binary is; a binary the simulator
 * was pointed at but that is not built yet (npm start builds the toolchain in
 * the background) is an image still being pulled, not a missing one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { FaultSpec } from '../../faults/registry';
import { KubeRuntime } from '../../kube/runtime';

const IMAGE = 'registry.k8s.io/kube-apiserver:v1.37.2';

describe('simulated image pulls', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'image-state-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const runtime = (held = false) => new KubeRuntime(
    { dir, podBackoffMs: 100, apiserverBins: { 'v1.37.2': path.join(dir, 'bin', 'kube-apiserver') }, etcdBin: path.join(dir, 'bin', 'etcd') },
    { serverState: () => 'up', flavorOf: () => undefined, pullHeld: (id) => held && id === 'srv-1' },
    pino({ level: 'silent' }),
  );

  it('a binary not built yet is an image being pulled, and a pullable one once it is there', () => {
    const r = runtime();
    expect(r.imageState('kube-apiserver', IMAGE, 'srv-1')).toEqual({ pulling: expect.stringContaining('still being built (kube-apiserver)') });
    // released together: the controller-manager's image comes with the API server's
    expect(r.imageState('kube-controller-manager', 'registry.k8s.io/kube-controller-manager:v1.37.2', 'srv-1')).toEqual({ pulling: expect.any(String) });
    expect(r.imageState('etcd', 'registry.k8s.io/etcd:3.6.5-0', 'srv-1')).toEqual({ pulling: expect.stringContaining('(etcd)') });
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.writeFileSync(path.join(dir, 'bin', 'kube-apiserver'), '');
    expect(r.imageState('kube-apiserver', IMAGE, 'srv-1')).toEqual({ binary: path.join(dir, 'bin', 'kube-apiserver') });
  });

  it('a tag no binary is built for does not exist; a program it has no binary for is not simulated', () => {
    const r = runtime();
    expect(r.imageState('kube-apiserver', 'registry.k8s.io/kube-apiserver:v1.99.0', 'srv-1')).toEqual({ notFound: true });
    expect(r.imageState('coredns', 'registry.k8s.io/coredns/coredns:v1.12.1', 'srv-1')).toEqual({ notSimulated: true });
  });

  it('an image pull fault holds every pull of the machine it names, not of the others', () => {
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.writeFileSync(path.join(dir, 'bin', 'kube-apiserver'), '');
    const r = runtime(true);
    expect(r.imageState('kube-apiserver', IMAGE, 'srv-1')).toEqual({ pulling: expect.stringContaining('an image pull fault holds its pulls') });
    expect(r.imageState('coredns', 'registry.k8s.io/coredns/coredns:v1.12.1', 'srv-1')).toEqual({ pulling: expect.any(String) });
    expect(r.imageState('kube-apiserver', IMAGE, 'srv-2')).toEqual({ binary: path.join(dir, 'bin', 'kube-apiserver') });
  });
});

describe('image pull faults', () => {
  const issue = (spec: unknown) => {
    const r = FaultSpec.safeParse(spec);
    return r.success ? undefined : r.error.issues.map((i) => [i.path.join('.'), i.message]);
  };
  it('hold pulls (mode hang) of images only; anything else is refused naming the field', () => {
    expect(issue({ target: 'image', operation: 'pull', mode: 'hang', match: 'k8s-master' })).toBeUndefined();
    expect(issue({ target: 'image', operation: 'pull', mode: 'fail' })).toEqual([['mode', expect.stringContaining('only mode hang')]]);
    expect(issue({ target: 'image', operation: 'create', mode: 'hang' })).toEqual([['operation', expect.stringContaining('operation pull goes with target image')]]);
    expect(issue({ target: 'server', operation: 'pull', mode: 'hang' })).toEqual([['operation', expect.stringContaining('operation pull goes with target image')]]);
  });
});
