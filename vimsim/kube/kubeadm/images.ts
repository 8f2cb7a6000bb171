/**
 * Image pulls as containerd on a simulated machine does them: an image
 * whose program the simulator runs (etcd, kube-apiserver) is pullable when
 * its binary is there, missing when no binary was built for its tag, and not
 * yet pullable while the toolchain is still being built or an image pull
 * fault holds the machine's pulls. What kubeadm's ImagePull preflight check and
 * `kubeadm config images pull` print come from here.
 */
import type { SimHost } from '../../ssh/host/host';
import { notFound } from '../static-pods';

/** The images of a control plane, as `kubeadm config images list` prints them. */
export function controlPlaneImages(repo: string, version: string): string[] {
  return ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy'].map((n) => `${repo}/${n}:${version}`)
    .concat([`${repo}/coredns/coredns:v1.12.1`, `${repo}/pause:3.10.1`, `${repo}/etcd:3.6.5-0`]);
}

/** Why `image` cannot be pulled on `host` now, as kubeadm reports it; undefined when it can. */
export function pullError(host: SimHost, image: string): string | undefined {
  const runtime = host.kube?.runtime;
  if (!runtime) return undefined;
  const program = image.slice(image.lastIndexOf('/') + 1, image.lastIndexOf(':'));
  const state = runtime.imageState(program, image, host.serverId);
  if ('pulling' in state) return `failed to pull image ${image}: output: E0000 ${state.pulling}, error: exit status 1`;
  if ('notFound' in state) return `failed to pull image ${image}: failed to pull image ${image}: ${notFound(image)}`;
  return undefined;
}

/** kubeadm's ImagePull preflight check over `images`. */
export function imagePullCheck(host: SimHost, images: string[]) {
  return async () => ({ name: 'ImagePull', warnings: [] as string[], errors: images.flatMap((i) => pullError(host, i) ?? []) });
}
