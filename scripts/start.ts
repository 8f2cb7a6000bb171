/**
 * `npm start`: the whole product on loopback — Temporal dev server (SQLite
 * under DATA_DIR, Web UI), the embedded cloud (real Keystone and Heat, the VIM
 * simulator for Nova, Neutron, Glance, Cinder and the machines), worker,
 * scripts worker (package scripts, sandboxed) and API. Ctrl-C stops it all;
 * starting again resumes whatever was in flight
 * (Temporal keeps it). With TEMPORAL_ADDRESS set, no dev server is started;
 * with OS_AUTH_URL set, no embedded cloud (the default VIM is that OpenStack).
 */
import path from 'node:path';
import { loadConfig } from '../common/config';
import { privateDataDir } from '../common/data-dir';
import { startCloud, type RunningCloud } from '../runtime/cloud';
import { startDevServer, DevServer } from '../runtime/dev-server';
import { startIsolatedDevServer, UI_USER } from '../runtime/temporal-isolation';
import { buildKubeToolchainInBackground, kubeToolchainPaths, kubeToolchainReady, type BackgroundBuild } from '../runtime/kube';
import { Child, scriptsWorkerEnv, startComponent, stopComponent, waitForHttp } from '../runtime/processes';

async function main() {
  const cfg = loadConfig();
  const say = (m: string) => console.log(`[start] ${m}`);
  const children: Child[] = [];
  let temporal: DevServer | undefined;
  let cloud: RunningCloud | undefined;
  let stopping = false;
  let uiLogin: string | undefined;
  let build: BackgroundBuild | undefined;

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping ...');
    build?.stop();
    for (const c of [...children].reverse()) await stopComponent(c);
    await cloud?.stop();
    await temporal?.stop();
    say('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
    privateDataDir(cfg.dataDir); // 0700: package scripts run as another user and must not read it
    let temporalEnv: Record<string, string> = {};
    if (!cfg.externalTemporal) {
      const dev = { dataDir: path.join(cfg.dataDir, 'temporal'), port: cfg.temporalPort, uiPort: cfg.temporalUiPort, namespace: cfg.temporalNamespace, log: say };
      if (process.env.TEMPORAL_DEV_ISOLATION === 'off') {
        say('TEMPORAL_DEV_ISOLATION=off: the Temporal dev server is plaintext and unauthenticated, open to every process of this host');
        temporal = await startDevServer(dev);
      } else {
        // its own network namespace; the product connects with mTLS, the operator's UI takes a password
        const isolated = await startIsolatedDevServer(dev);
        temporal = isolated;
        temporalEnv = isolated.clientEnv;
        uiLogin = `user ${UI_USER}, password in ${isolated.uiPasswordFile}`;
      }
    }
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: cfg.dataDir, TEMPORAL_ADDRESS: cfg.temporalAddress, ...temporalEnv };
    if (cfg.embeddedCloud) {
      // The simulator's servers answer SSH on their own 127.x address; the Mgmt Drivers must use that port.
      env.VIMSIM_SSH_PORT ??= '2222';
      env.MGMT_SSH_PORT ??= env.VIMSIM_SSH_PORT;
    }
    const launch = (name: Child['name'], childEnv = env) => {
      const c = startComponent(name, childEnv);
      children.push(c);
      void c.exited.then((code) => { if (!stopping) { say(`${name} exited (${code}); stopping everything`); void stopAll(1); } });
      return c;
    };
    if (cfg.embeddedCloud) {
      // The simulator's Kubernetes control planes run a real kube-apiserver (built once, 5-7 min) and Debian's etcd. Not built
      // yet: it builds in the background while everything else starts and serves; until it is there, the simulated machines
      // cannot pull the control-plane images, and cluster operations wait for them (their status says so).
      const kube = kubeToolchainPaths();
      if (!kubeToolchainReady()) {
        say('Kubernetes toolchain: not built yet; building it in the background (cluster operations wait for it, the rest serves now)');
        build = buildKubeToolchainInBackground((m) => say(`Kubernetes toolchain: ${m}`));
        build.done.then(() => say('Kubernetes toolchain: ready; cluster operations go on'),
          (e: Error) => { if (!stopping) say(`Kubernetes toolchain: ${e.message}; kubeadm on simulated servers cannot start an API server`); });
      }
      cloud = await startCloud({
        dataDir: cfg.dataDir, keystonePort: cfg.keystonePort, heatPort: cfg.heatPort, octaviaPort: cfg.octaviaPort, vimsimPort: cfg.vimsimPort,
        apiUrl: cfg.apiBaseUrl, heatSleepScale: cfg.heatSleepScale, heatDatabaseUrl: cfg.heatDatabaseUrl, env, kube, log: say,
        onSimulatorExit: (code) => { if (!stopping) { say(`vimsim exited (${code}); stopping everything`); void stopAll(1); } },
      });
    }
    // Its own environment: Temporal, the task queue and the channel key derived from SECRET_KEY; no DATA_DIR, no secrets.
    const scriptsEnv = scriptsWorkerEnv(env, cfg.dataDir);
    launch('worker');
    launch('scripts-worker', scriptsEnv);
    const api = launch('api', { ...env, ...cloud?.apiEnv }); // the API checks tokens as the nfv service user
    await waitForHttp(`${cfg.apiBaseUrl}/healthz`, 120_000, api);
    say(`API (Tacker-compatible):    ${cfg.apiBaseUrl}`);
    say(`Temporal Web UI:            ${cfg.temporalUiUrl}${uiLogin ? ` (${uiLogin})` : ''}`);
    if (cloud) {
      say(`Keystone:                   ${cloud.authUrl} (admin's credentials: . ${cloud.openstack.openrc})`);
      say(`Heat:                       ${cloud.heatUrl}`);
      say(`VIM simulator (Nova, ...):  ${cloud.simulatorUrl}`);
    }
    say('ready; Ctrl-C stops everything');
  } catch (e) {
    console.error(`[start] ${(e as Error).message}`);
    await stopAll(1);
  }
}

void main();
