/**
 * The embedded cloud of the default deployment: the real Keystone and Heat
 * (runtime/openstack) with the VIM simulator serving Nova, Neutron, Glance and
 * Cinder and the machines behind them. `npm start`, the test harness and the
 * benchmarks all start it here. A Heat that dies is started again on the same
 * state, as a service manager would: Heat fails what it had in progress
 * ("Engine went down ..."), and the product's stack steps drive those stacks on.
 */
import { kubeToolchainEnv, type KubeToolchain } from './kube';
import { startEmbeddedCloud, type EmbeddedCloud } from './openstack';
import { startComponent, stopComponent, waitForHttp, type Child } from './processes';

export interface CloudOptions {
  dataDir: string;
  keystonePort: number;
  heatPort: number;
  /** Octavia's API; default 9876. */
  octaviaPort?: number;
  vimsimPort: number;
  /** Base URL of the product API (the catalog's nfv-orchestration and container-infra). */
  apiUrl: string;
  heatSleepScale: number;
  /** Heat's database (e.g. postgresql+psycopg2://...); default SQLite under dataDir. */
  heatDatabaseUrl?: string;
  /** Environment of the simulator process (VIMSIM_* settings); its ADMIN_PASSWORD is the embedded cloud's admin password. */
  env: NodeJS.ProcessEnv;
  /** The Kubernetes toolchain (runtime/kube) the simulator's control planes run on; without it kubeadm init cannot start an API server. */
  kube?: KubeToolchain;
  /** Output of the simulator and of Keystone/Heat (file descriptors); default: inherited / files under DATA_DIR/openstack/logs. */
  stdio?: { simulator?: number; openstack?: number };
  log: (m: string) => void;
  /** Called when the simulator exits without being asked to. */
  onSimulatorExit?: (code: number | null) => void;
}

export interface RunningCloud {
  authUrl: string;
  heatUrl: string;
  simulatorUrl: string;
  openstack: EmbeddedCloud;
  simulator: Child;
  /** What the API needs to check callers' tokens: the `nfv` service user (keystonemiddleware's model). */
  apiEnv: Record<string, string>;
  stop(): Promise<void>;
}

const MAX_HEAT_RESTARTS_PER_MINUTE = 5;

export async function startCloud(o: CloudOptions): Promise<RunningCloud> {
  const simulatorUrl = `http://127.0.0.1:${o.vimsimPort}`;
  let stopping = false;
  const restarts: number[] = [];
  const openstack: EmbeddedCloud = await startEmbeddedCloud({
    dataDir: o.dataDir, keystonePort: o.keystonePort, heatPort: o.heatPort, octaviaPort: o.octaviaPort, heatSleepScale: o.heatSleepScale, heatDatabaseUrl: o.heatDatabaseUrl,
    simulatorUrl, apiUrl: o.apiUrl, log: o.log, stdio: o.stdio?.openstack, adminPassword: o.env.ADMIN_PASSWORD || undefined,
    onUnexpectedExit: (name) => {
      if (stopping || name !== 'heat') return;
      const now = Date.now();
      restarts.push(now);
      while (restarts[0] < now - 60_000) restarts.shift();
      if (restarts.length > MAX_HEAT_RESTARTS_PER_MINUTE) {
        o.log(`heat died ${restarts.length} times within a minute; not starting it again (logs under ${o.dataDir}/openstack/logs)`);
        return;
      }
      o.log('heat exited unexpectedly; starting it again on the same state');
      openstack.restartHeat().then(() => o.log('heat is back'), (e) => o.log(`heat could not be started again: ${(e as Error).message}`));
    },
  });
  const svc = openstack.serviceUsers.vimsim;
  const simulator = startComponent('vimsim', {
    ...o.env, ...(o.kube ? kubeToolchainEnv(o.kube) : {}), DATA_DIR: o.dataDir, VIMSIM_PORT: String(o.vimsimPort), VIMSIM_AUTH_URL: openstack.authUrl,
    VIMSIM_SERVICE_USER: svc.username, VIMSIM_SERVICE_PASSWORD: svc.password, VIMSIM_SERVICE_PROJECT: svc.project,
  }, o.stdio?.simulator ?? 'inherit');
  void simulator.exited.then((code) => { if (!stopping) o.onSimulatorExit?.(code); });
  try {
    await waitForHttp(`${simulatorUrl}/healthz`, 60_000, simulator);
  } catch (e) {
    stopping = true;
    await stopComponent(simulator);
    await openstack.stop();
    throw e;
  }
  const nfv = openstack.serviceUsers.nfv;
  return {
    authUrl: openstack.authUrl, heatUrl: openstack.heatUrl, simulatorUrl, openstack, simulator,
    apiEnv: { NFV_SERVICE_USER: nfv.username, NFV_SERVICE_PASSWORD: nfv.password, NFV_SERVICE_PROJECT: nfv.project, NFV_SERVICE_DOMAIN: nfv.domain },
    async stop() {
      stopping = true;
      await stopComponent(simulator);
      await openstack.stop();
    },
  };
}
