/**
 * The Kubernetes toolchain the VIM simulator's control planes run on (see
 * docs/cluster-engine.md section 1): kube-apiserver and kubectl v1.37.2 built
 * from the Go module proxy into <project>/.tools/k8s/bin (runtime/kube/build.sh,
 * once per machine: ~5-7 min cold on 2 cores), kube-apiserver v1.36.3 beside
 * it (kube-apiserver-v1.36.3, for minor upgrades: about 5 min more cold,
 * seconds when the shared Go build cache has it), and etcd from Debian's etcd-server
 * (scripts/install-test-deps.sh installs it when we are root). A cached
 * toolchain costs one `--version` call per binary.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { withBuildLock } from '../build-lock';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const K8S_VERSION = 'v1.37.2';
/**
 * Older kube-apiservers the simulated masters can run (the version a static
 * pod's image tag names). Only the API server: kubectl v1.37.2 talks to a
 * v1.36 server within kubectl's supported skew of one minor.
 */
export const OLDER_APISERVERS = ['v1.36.3'];
/** KUBE_TOOLS_DIR may point at another checkout's build (e.g. a worktree sharing the main checkout's). */
export const KUBE_TOOLS = process.env.KUBE_TOOLS_DIR || path.join(PROJECT_ROOT, '.tools', 'k8s');
const BUILD_SCRIPT = path.join(__dirname, 'build.sh');
const INSTALL_DEPS = path.join(PROJECT_ROOT, 'scripts', 'install-test-deps.sh');

export interface KubeToolchain {
  /** kube-apiserver K8S_VERSION. */
  kubeApiserver: string;
  /** Every kube-apiserver by version (K8S_VERSION and OLDER_APISERVERS). */
  kubeApiservers: Record<string, string>;
  kubectl: string;
  etcd: string;
  version: string;
}

/** The environment that tells the simulator where the binaries are. */
export function kubeToolchainEnv(t: KubeToolchain): Record<string, string> {
  return { VIMSIM_KUBE_APISERVER: t.kubeApiserver, VIMSIM_KUBE_APISERVERS: JSON.stringify(t.kubeApiservers), VIMSIM_ETCD: t.etcd, VIMSIM_KUBECTL: t.kubectl };
}

/** A binary to build: the command, its version and the file name it gets in bin/. */
interface Target { command: string; version: string; file: string }

const TARGETS: Target[] = [
  { command: 'kube-apiserver', version: K8S_VERSION, file: 'kube-apiserver' },
  { command: 'kubectl', version: K8S_VERSION, file: 'kubectl' },
  ...OLDER_APISERVERS.map((v) => ({ command: 'kube-apiserver', version: v, file: `kube-apiserver-${v}` })),
];

function versionOf(bin: string, args: string[]): string | undefined {
  if (!fs.existsSync(bin)) return undefined;
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout : undefined;
}

/** Which of the built binaries are missing or of another version. */
export function missingBinaries(bin: string): Target[] {
  return TARGETS.filter((t) => {
    const file = path.join(bin, t.file);
    const ok = t.command === 'kubectl'
      ? versionOf(file, ['version', '--client'])?.includes(`Client Version: ${t.version}`)
      : versionOf(file, ['--version'])?.includes(`Kubernetes ${t.version}`);
    return !ok;
  });
}

/** Builds the missing targets, one build.sh run per version (each has its own module directory). */
function buildAll(dir: string, targets: Target[], log: (m: string) => void, stream: boolean): void {
  for (const version of [...new Set(targets.map((t) => t.version))]) {
    const commands = targets.filter((t) => t.version === version).map((t) => t.command);
    build(dir, version, commands, version === K8S_VERSION ? '' : `-${version}`, log, stream);
  }
}

function build(dir: string, version: string, commands: string[], suffix: string, log: (m: string) => void, stream: boolean): void {
  const t0 = Date.now();
  log(`building ${commands.join(' and ')} ${version} from the Go module proxy into ${path.join(dir, 'bin')} (about 5-7 min on 2 cores when nothing is cached; logs in ${path.join(dir, 'logs')})`);
  const r = spawnSync('bash', [BUILD_SCRIPT, ...commands], {
    env: { ...process.env, K8S_VERSION: version, SUFFIX: suffix, W: dir },
    encoding: 'utf8',
    // streamed: the steps show as they happen (CI logs); else handed to `log` at the end
    stdio: ['ignore', stream ? 'inherit' : 'pipe', 'pipe'],
    timeout: 60 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const line of (r.stdout ?? '').split('\n').filter(Boolean)) log(line);
  if (r.status !== 0) throw new Error(`Kubernetes toolchain build failed (exit ${r.status ?? r.signal}): ${r.stderr.trim().slice(-3000)}`);
  log(`Kubernetes toolchain ${version} built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/bin', '/usr/local/bin'])) {
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/** etcd from Debian's etcd-server; installed (with the other test dependencies) when missing and we are root. */
function ensureEtcd(log: (m: string) => void): string {
  const found = process.env.VIMSIM_ETCD || findOnPath('etcd');
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error('etcd is not installed: run `sudo bash scripts/install-test-deps.sh` (Debian etcd-server)');
  log('etcd missing: installing Debian etcd-server (scripts/install-test-deps.sh) ...');
  execFileSync('bash', [INSTALL_DEPS], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 15 * 60_000 });
  const installed = findOnPath('etcd');
  if (!installed) throw new Error('scripts/install-test-deps.sh ran but etcd is still not on PATH');
  return installed;
}

/** Where the toolchain's binaries are, or will be once built (the simulator may start before they exist). */
export function kubeToolchainPaths(): KubeToolchain {
  const bin = path.join(KUBE_TOOLS, 'bin');
  const kubeApiservers = Object.fromEntries(TARGETS.filter((t) => t.command === 'kube-apiserver').map((t) => [t.version, path.join(bin, t.file)]));
  const etcd = process.env.VIMSIM_ETCD || findOnPath('etcd') || '/usr/bin/etcd';
  return { kubeApiserver: path.join(bin, 'kube-apiserver'), kubeApiservers, kubectl: path.join(bin, 'kubectl'), etcd, version: K8S_VERSION };
}

/** Whether the whole toolchain is there: every binary built, of its version, and etcd installed. */
export function kubeToolchainReady(): boolean {
  return missingBinaries(path.join(KUBE_TOOLS, 'bin')).length === 0 && Boolean(process.env.VIMSIM_ETCD || findOnPath('etcd'));
}

const PROGRESS_EVERY_MS = 60_000;

/** A toolchain build running in a child process. */
export interface BackgroundBuild {
  /** Resolves when the toolchain is there; rejects with the build's reason. */
  done: Promise<KubeToolchain>;
  /** Stops the build (its whole process group); what was built stays, a half-built binary does not. */
  stop(): void;
}

/**
 * ensureKubeToolchain in a child process of its own group (the build itself
 * runs at nice 19): each line of its progress goes to `log` with the time
 * since it began, so a caller can serve meanwhile.
 */
export function buildKubeToolchainInBackground(log: (m: string) => void): BackgroundBuild {
  const t0 = Date.now();
  const child = spawn(process.execPath, [...process.execArgv, path.join(__dirname, `build-main${path.extname(__filename)}`)], {
    cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let tail = '';
  let last = { line: '', at: Date.now() };
  const since = () => `${Math.round((Date.now() - t0) / 1000)} s`;
  const lines = (chunk: Buffer, keep: boolean) => {
    for (const line of chunk.toString('utf8').split('\n').map((l) => l.trimEnd()).filter(Boolean)) {
      log(`${line} (${since()})`);
      last = { line, at: Date.now() };
      if (keep) tail = `${tail}\n${line}`.slice(-3000);
    }
  };
  // a compile is minutes without a line: say it is still going, once a minute
  const alive = setInterval(() => {
    if (Date.now() - last.at >= PROGRESS_EVERY_MS) log(`still at "${last.line.replace(/^\[[\d:]+\] /, '').slice(0, 80)}" (${since()})`);
  }, PROGRESS_EVERY_MS);
  alive.unref();
  child.stdout!.on('data', (c: Buffer) => lines(c, false));
  child.stderr!.on('data', (c: Buffer) => lines(c, true));
  const done = new Promise<KubeToolchain>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearInterval(alive);
      if (code === 0) resolve(kubeToolchainPaths());
      else reject(new Error(`the Kubernetes toolchain build ended (${code ?? signal}): ${tail.trim().slice(-1000)}`));
    });
  });
  return {
    done,
    stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* gone meanwhile */
      }
    },
  };
}

/**
 * The toolchain, built or installed when missing; idempotent and safe to call
 * from several processes at once. Throws when it cannot be had (no Go, not root
 * for apt, a failed build) with the reason.
 */
export function ensureKubeToolchain(log: (m: string) => void = () => undefined, opts: { stream?: boolean } = {}): KubeToolchain {
  const dir = KUBE_TOOLS;
  const bin = path.join(dir, 'bin');
  if (missingBinaries(bin).length > 0) {
    withBuildLock(path.join(dir, 'build.lock'), 'Kubernetes toolchain build', () => {
      const missing = missingBinaries(bin); // someone else may have built them meanwhile
      if (missing.length > 0) buildAll(dir, missing, log, opts.stream ?? false);
    }, log);
    const still = missingBinaries(bin);
    if (still.length > 0) throw new Error(`the build left no usable ${still.map((t) => `${t.command} ${t.version}`).join(', ')} in ${bin}`);
  }
  const etcd = ensureEtcd(log);
  const kubeApiservers = Object.fromEntries(TARGETS.filter((t) => t.command === 'kube-apiserver').map((t) => [t.version, path.join(bin, t.file)]));
  return { kubeApiserver: path.join(bin, 'kube-apiserver'), kubeApiservers, kubectl: path.join(bin, 'kubectl'), etcd, version: K8S_VERSION };
}
