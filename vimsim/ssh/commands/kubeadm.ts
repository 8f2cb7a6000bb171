/**
 * The kubeadm CLI (package kubeadm of pkgs.k8s.io): init (and `init phase
 * certs|kubeconfig|control-plane|etcd|kubelet-start`), join, reset, token,
 * upgrade plan|apply|node, version, config images. The work is in
 * vimsim/kube/kubeadm; this parses the command line and prints errors as
 * kubeadm does (exit 1). Its version is the installed package's.
 */
import { ConfigError, defaultCluster, readConfigFile, parseConfigText, type KubeadmConfigFile } from '../../kube/kubeadm/config';
import { PhaseError } from '../../kube/kubeadm/certs';
import { initPhase, kubeadmInit, type KubeadmIo } from '../../kube/kubeadm/init';
import { controlPlaneImages, pullError } from '../../kube/kubeadm/images';
import { kubeadmJoin } from '../../kube/kubeadm/join';
import { kubeadmReset } from '../../kube/kubeadm/reset';
import { randomToken } from '../../kube/kubeadm/bootstrap';
import { tokenCreate, tokenDelete, tokenList } from '../../kube/kubeadm/token';
import { parseVersion, upgradeApply, upgradeNode, upgradePlan } from '../../kube/kubeadm/upgrade';
import YAML from 'yaml';
import { installedKubeVersion } from '../host/kube-packages';
import { getopt, has, isRoot, value, values, type CommandContext, type CommandTable, type ParsedArgs } from './types';

const VALUED = [
  'config', 'ignore-preflight-errors', 'skip-phases', 'kubeconfig', 'ttl', 'description', 'usages', 'groups', 'token', 'discovery-token',
  'tls-bootstrap-token', 'discovery-token-ca-cert-hash', 'cri-socket', 'node-name', 'apiserver-advertise-address', 'apiserver-bind-port',
  'v', 'o', 'output', 'cert-dir', 'control-plane-endpoint', 'pod-network-cidr', 'service-cidr', 'apiserver-cert-extra-sans', 'kubernetes-version',
  'certificate-key',
];
const STACK_HINT = 'To see the stack trace of this error execute with --v=5 or higher';

/** The installed kubeadm's version (the package's, e.g. 1.37.2-1.1 → v1.37.2). */
function version(ctx: CommandContext, pkg = 'kubeadm'): string {
  return installedKubeVersion(ctx.sh.host, pkg) ?? 'v1.37.2';
}

/** A boolean flag: absent → its default, `--x` → true, `--x=false` → false. */
function bool(p: ParsedArgs, name: string, fallback: boolean): boolean {
  const v = p.flags.get(name);
  return v === undefined ? fallback : v === true || v !== 'false';
}

/**
 * init's kubernetesVersion: kubeadm's own when the config has none (offline,
 * the stable marker falls back to it); below kubeadm's minimum it refuses.
 */
function initVersion(ctx: CommandContext, file: KubeadmConfigFile): KubeadmConfigFile {
  const cluster = file.cluster ?? defaultCluster();
  cluster.kubernetesVersion ??= version(ctx);
  const want = parseVersion(cluster.kubernetesVersion);
  const kubeadmVersion = parseVersion(version(ctx))!;
  if (want && want.minor < kubeadmVersion.minor - 1) {
    throw new ConfigError(`this version of kubeadm only supports deploying clusters with the control plane version >= ${kubeadmVersion.major}.${kubeadmVersion.minor - 1}.0. Current version: ${cluster.kubernetesVersion}`);
  }
  return { ...file, cluster };
}

function versionInfo(v: string) {
  const [major, minor] = v.slice(1).split('.');
  return { major, minor, gitVersion: v, gitCommit: `module-${v}`, gitTreeState: 'clean', buildDate: '2026-11-20T10:00:00Z', goVersion: 'go1.26.8', compiler: 'gc', platform: 'linux/amd64' };
}

function io(ctx: CommandContext): KubeadmIo {
  return { host: ctx.sh.host, out: (l) => ctx.io.stdout.write(`${l}\n`), err: (l) => ctx.io.stderr.write(`${l}\n`) };
}

/** Flags that stand in for config fields (init without --config, join with --token). */
function flagConfig(p: ReturnType<typeof getopt>, kind: 'init' | 'join', endpoint?: string): string {
  const v = (name: string) => value(p, name);
  const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined));
  const nodeRegistration = defined({ name: v('node-name'), criSocket: v('cri-socket') });
  const doc = (kindName: string, body: Record<string, unknown>) => YAML.stringify({ apiVersion: 'kubeadm.k8s.io/v1beta4', kind: kindName, ...defined(body) });
  const localAPIEndpoint = defined({ advertiseAddress: v('apiserver-advertise-address'), bindPort: v('apiserver-bind-port') ? Number(v('apiserver-bind-port')) : undefined });
  if (kind === 'join') {
    return doc('JoinConfiguration', {
      discovery: { bootstrapToken: { apiServerEndpoint: endpoint ?? '', token: v('discovery-token') ?? v('token') ?? '', caCertHashes: values(p, 'discovery-token-ca-cert-hash'), unsafeSkipCAVerification: has(p, 'discovery-token-unsafe-skip-ca-verification') } },
      nodeRegistration,
      controlPlane: has(p, 'control-plane') ? defined({ localAPIEndpoint, certificateKey: v('certificate-key') }) : undefined,
    });
  }
  const init = doc('InitConfiguration', {
    localAPIEndpoint,
    nodeRegistration,
    bootstrapTokens: v('token') ? [{ token: v('token') }] : undefined,
  });
  const cluster = doc('ClusterConfiguration', {
    networking: defined({ podSubnet: v('pod-network-cidr'), serviceSubnet: v('service-cidr') }),
    controlPlaneEndpoint: v('control-plane-endpoint'),
    kubernetesVersion: v('kubernetes-version'),
    certificatesDir: v('cert-dir'),
    apiServer: v('apiserver-cert-extra-sans') ? { certSANs: v('apiserver-cert-extra-sans')!.split(',') } : undefined,
  });
  return `${init}---\n${cluster}`;
}

function config(ctx: CommandContext, p: ReturnType<typeof getopt>, kind: 'init' | 'join', endpoint?: string): KubeadmConfigFile {
  const file = value(p, 'config');
  if (file) return readConfigFile(ctx.sh.host.fs, ctx.sh.resolve(file));
  return parseConfigText(flagConfig(p, kind, endpoint));
}

const list = (p: ReturnType<typeof getopt>, name: string) => values(p, name).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);

/** Non-root: kubeadm's IsPrivilegedUser check. */
function notRoot(ctx: CommandContext): number {
  ctx.io.stderr.write(`[preflight] Some fatal errors occurred:\n\t[ERROR IsPrivilegedUser]: user is not running as root\n[preflight] If you know what you are doing, you can make a check non-fatal with \`--ignore-preflight-errors=...\`\nerror execution phase preflight: preflight checks failed\n${STACK_HINT}\n`);
  return 1;
}

async function kubeadm(ctx: CommandContext): Promise<number> {
  const p = getopt(ctx.args, VALUED);
  const [verb, ...rest] = p.operands;
  const kio = io(ctx);
  const kubeconfig = ctx.sh.resolve(value(p, 'kubeconfig') ?? '/etc/kubernetes/admin.conf');
  try {
    switch (verb) {
      case 'version': {
        const v = version(ctx);
        const o = value(p, 'o', 'output');
        if (o === 'short') kio.out(v);
        else if (o === 'json') kio.out(JSON.stringify({ clientVersion: versionInfo(v) }, null, 2));
        else {
          const i = versionInfo(v);
          kio.out(`kubeadm version: &version.Info{Major:"${i.major}", Minor:"${i.minor}", EmulationMajor:"", EmulationMinor:"", MinCompatibilityMajor:"", MinCompatibilityMinor:"", GitVersion:"${v}", GitCommit:"${i.gitCommit}", GitTreeState:"clean", BuildDate:"${i.buildDate}", GoVersion:"${i.goVersion}", Compiler:"gc", Platform:"linux/amd64"}`);
        }
        return 0;
      }
      case 'init': {
        if (!isRoot(ctx)) return notRoot(ctx);
        if (rest[0] === 'phase') {
          if (!rest[1]) throw new Error('phase name is required');
          await initPhase(kio, config(ctx, p, 'init'), rest[1], rest[2], { uploadCerts: has(p, 'upload-certs'), certificateKey: value(p, 'certificate-key'), kubeconfig });
          return 0;
        }
        await kubeadmInit(kio, initVersion(ctx, config(ctx, p, 'init')), { ignore: list(p, 'ignore-preflight-errors'), skip: list(p, 'skip-phases'), uploadCerts: has(p, 'upload-certs'), certificateKey: value(p, 'certificate-key') });
        return 0;
      }
      case 'join': {
        if (!isRoot(ctx)) return notRoot(ctx);
        const file = config(ctx, p, 'join', rest[0]);
        if (!file.join) throw new ConfigError('no JoinConfiguration found in the configuration');
        await kubeadmJoin(kio, file.join, { ignore: list(p, 'ignore-preflight-errors') });
        return 0;
      }
      case 'reset': {
        if (!isRoot(ctx)) return notRoot(ctx);
        const certDir = value(p, 'cert-dir');
        await kubeadmReset(kio, { force: has(p, 'f', 'force'), answer: () => ctx.io.stdin.readLine(), certificatesDir: certDir });
        return 0;
      }
      case 'upgrade': {
        if (!isRoot(ctx)) return notRoot(ctx);
        const ignore = list(p, 'ignore-preflight-errors');
        const etcdUpgrade = bool(p, 'etcd-upgrade', true);
        if (rest[0] === 'plan') await upgradePlan(kio, { kubeconfig, ignore });
        else if (rest[0] === 'apply') {
          await upgradeApply(kio, rest[1], {
            kubeconfig, ignore, etcdUpgrade, yes: has(p, 'y', 'yes'), force: has(p, 'f', 'force'), answer: () => ctx.io.stdin.readLine(),
          });
        } else if (rest[0] === 'node') await upgradeNode(kio, { ignore, etcdUpgrade });
        else throw new Error(`unknown command "${rest[0] ?? ''}" for "kubeadm upgrade"`);
        return 0;
      }
      case 'token': {
        const [sub, ...args] = rest;
        if (sub === 'generate') kio.out(randomToken());
        else if (sub === 'create') {
          await tokenCreate(kio, args[0], {
            kubeconfig, ttl: value(p, 'ttl'), description: value(p, 'description'),
            usages: list(p, 'usages').length ? list(p, 'usages') : undefined, groups: list(p, 'groups').length ? list(p, 'groups') : undefined,
            printJoinCommand: has(p, 'print-join-command'),
          });
        } else if (sub === 'list') await tokenList(kio, kubeconfig);
        else if (sub === 'delete') await tokenDelete(kio, kubeconfig, args);
        else throw new Error(`unknown command "${sub ?? ''}" for "kubeadm token"`);
        return 0;
      }
      case 'config': {
        if (rest[0] === 'images' && (rest[1] === 'list' || rest[1] === 'pull')) {
          const images = controlPlaneImages('registry.k8s.io', value(p, 'kubernetes-version') ?? version(ctx));
          for (const i of images) {
            if (rest[1] === 'list') { kio.out(i); continue; }
            const error = pullError(ctx.sh.host, i);
            if (error) throw new Error(error); // kubeadm stops at the first image it cannot pull
            kio.out(`[config/images] Pulled ${i}`);
          }
          return 0;
        }
        throw new Error(`unknown command "${rest.join(' ')}" for "kubeadm config"`);
      }
      default:
        ctx.io.stderr.write(`unknown command "${verb ?? ''}" for "kubeadm"\nRun 'kubeadm --help' for usage.\n`);
        return 1;
    }
  } catch (err) {
    if (err instanceof PhaseError) ctx.io.stderr.write(`error execution phase ${err.phase}: ${err.message}\n${STACK_HINT}\n`);
    else ctx.io.stderr.write(`${(err as Error).message}\n${STACK_HINT}\n`);
    if (!(err instanceof PhaseError) && !(err instanceof ConfigError)) ctx.sh.host.hooks.log.debug({ err }, 'kubeadm failed');
    return 1;
  }
}

export const KUBEADM_COMMANDS: CommandTable = {
  kubeadm: { run: kubeadm, available: (host) => host.isInstalled('kubeadm') },
  kubelet: {
    run(ctx) {
      if (ctx.args.includes('--version')) {
        ctx.io.stdout.write(`Kubernetes ${version(ctx, 'kubelet')}\n`);
        return 0;
      }
      ctx.io.stderr.write('E1201 kubelet: run as the systemd unit `kubelet` (systemctl start kubelet)\n');
      return 1;
    },
    available: (host) => host.isInstalled('kubelet'),
  },
};
