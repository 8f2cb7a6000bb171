/**
 * crictl (cri-tools) and the containerd CLI as far as an operator looks at a
 * node: the static pods' containers (state, attempts, logs of the real
 * processes), `containerd config default`. Images are not pulled.
 */
import { createHash } from 'node:crypto';
import type { SimHost } from '../host/host';
import { getopt, has, isRoot, type CommandContext, type CommandTable } from './types';

const SOCKET = 'unix:///run/containerd/containerd.sock';
const DOWN = `validate service connection: validate CRI v1 runtime API for endpoint "${SOCKET}": rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: no such file or directory"`;

function containerId(host: SimHost, pod: string, attempt: number): string {
  return createHash('sha256').update(`${host.serverId}/${pod}/${attempt}`).digest('hex');
}

function crictl(ctx: CommandContext): number {
  const p = getopt(ctx.args, ['r', 'runtime-endpoint', 'i', 'image-endpoint', 'o', 'output', 'name', 'tail']);
  const [verb, ...rest] = p.operands;
  const { host } = ctx.sh;
  if (!isRoot(ctx)) {
    ctx.io.stderr.write(`FATA[0000] validate service connection: validate CRI v1 runtime API for endpoint "${SOCKET}": rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: permission denied"\n`);
    return 1;
  }
  if (!host.services.get('containerd')?.active) {
    ctx.io.stderr.write(`FATA[0000] ${DOWN}\n`);
    return 1;
  }
  const pods = host.kube?.pods.view() ?? [];
  switch (verb) {
    case 'version':
      ctx.io.stdout.write('Version:  0.1.0\nRuntimeName:  containerd\nRuntimeVersion:  1.7.24\nRuntimeApiVersion:  v1\n');
      return 0;
    case 'info':
      ctx.io.stdout.write(`${JSON.stringify({ status: { conditions: [{ type: 'RuntimeReady', status: true }, { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'Network plugin returns error: cni plugin not initialized' }] } }, null, 2)}\n`);
      return 0;
    case 'images':
      ctx.io.stdout.write('IMAGE               TAG                 IMAGE ID            SIZE\n');
      return 0;
    case 'pods':
      ctx.io.stdout.write('POD ID              CREATED             STATE               NAME                NAMESPACE           ATTEMPT             RUNTIME\n');
      for (const pod of pods) ctx.io.stdout.write(`${containerId(host, pod.name, -1).slice(0, 13)}       ${pod.startedAt ?? ''}   Ready               ${pod.name}-${host.kube?.kubelet?.nodeName ?? host.hostname}   kube-system         0                   (default)\n`);
      return 0;
    case 'ps': {
      const all = has(p, 'a', 'all');
      ctx.io.stdout.write('CONTAINER           IMAGE               CREATED             STATE               NAME                      ATTEMPT             POD ID              POD\n');
      for (const pod of pods) {
        const rows: [number, string][] = [[pod.restarts, pod.state === 'running' ? 'Running' : 'Exited']];
        if (all) for (let a = pod.restarts - 1; a >= 0; a--) rows.push([a, 'Exited']);
        for (const [attempt, state] of rows) {
          if (!all && state !== 'Running') continue;
          ctx.io.stdout.write(`${containerId(host, pod.name, attempt).slice(0, 13)}       ${pod.program.padEnd(19)} ${(pod.startedAt ?? '').slice(11, 19).padEnd(19)} ${state.padEnd(19)} ${pod.name.padEnd(25)} ${String(attempt).padEnd(19)} ${containerId(host, pod.name, -1).slice(0, 13)}       ${pod.name}-${host.kube?.kubelet?.nodeName ?? host.hostname}\n`);
        }
      }
      return 0;
    }
    case 'logs': {
      const id = rest[0] ?? '';
      for (const pod of pods) {
        for (let attempt = pod.restarts; attempt >= 0; attempt--) {
          if (!id || !containerId(host, pod.name, attempt).startsWith(id)) continue;
          const lines = attempt === pod.restarts && pod.state === 'running' ? host.kube?.pods.get(pod.name)?.process?.tail(200) ?? [] : pod.lastExit?.log ?? [];
          ctx.io.stderr.write(lines.map((l) => `${l}\n`).join(''));
          return 0;
        }
      }
      ctx.io.stderr.write(`E1201 00:00:00.000000 remote_runtime.go:413] "ContainerStatus from runtime service failed" err="rpc error: code = NotFound desc = an error occurred when try to find container \\"${id}\\": not found"\nFATA[0000] rpc error: code = NotFound desc = an error occurred when try to find container "${id}": not found\n`);
      return 1;
    }
    default:
      ctx.io.stderr.write(`No help topic for '${verb ?? ''}'\n`);
      return 3;
  }
}

const DEFAULT_CONFIG = `disabled_plugins = []
imports = []
oom_score = 0
required_plugins = []
root = "/var/lib/containerd"
state = "/run/containerd"
version = 2

[grpc]
  address = "/run/containerd/containerd.sock"

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.8"

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"
      snapshotter = "overlayfs"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            SystemdCgroup = false

    [plugins."io.containerd.grpc.v1.cri".registry]
      config_path = ""
`;

export const CRICTL_COMMANDS: CommandTable = {
  crictl: { run: crictl, available: (host) => host.isInstalled('cri-tools') },
  containerd: {
    run(ctx) {
      if (ctx.args[0] === 'config' && ctx.args[1] === 'default') {
        ctx.io.stdout.write(DEFAULT_CONFIG);
        return 0;
      }
      if (ctx.args.includes('--version') || ctx.args[0] === '--version') {
        ctx.io.stdout.write('containerd github.com/containerd/containerd 1.7.24\n');
        return 0;
      }
      ctx.io.stderr.write('containerd: run as the systemd unit `containerd` (systemctl start containerd)\n');
      return 1;
    },
    available: (host) => host.isInstalled('containerd') || host.isInstalled('containerd.io'),
  },
};
