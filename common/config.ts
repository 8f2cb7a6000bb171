/**
 * Every setting the product reads from the environment, with its default.
 * The README's configuration table mirrors this file.
 */
import os from 'node:os';
import path from 'node:path';
import { QUOTA_SETTINGS, type Quotas } from './settings/quotas';
import { embeddedAdminPassword } from './embedded-admin';
import { parseSize } from './sizes';
import { parseDuration } from '@nfv-orchestrator/lib/go-duration';
import { intFromEnv } from '@nfv-orchestrator/lib/env';
import { endpointsFromSetting, portsFromSetting } from './endpoints';
import { PACKAGE_LIMIT_DEFAULTS as PKG } from './settings/package-limits';
import { CONTENT_STORE_KINDS, type ContentStoreKind } from './settings/content-store';
import { resourceTypesFromSetting } from './settings/heat-resource-types';

/** A non-negative integer from the environment, or the default when unset. */
/** Workflow runs a worker keeps cached by default: parked ops do not wake, so evicting them costs nothing (docs/benchmarks.md). */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 100;


/** A setting in Go's duration syntax ("10s", "1m30s"), as Kubernetes' flags take it; undefined when unset. */
function goDurationFromEnv(name: string): string | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!parseDuration(raw)) throw new Error(`${name} must be a positive Go duration such as 10s or 1m30s, got "${raw}"`);
  return raw;
}

export const SSH_HOST_KEY_SOURCES = ['console', 'console-or-first-use', 'first-use'] as const;
export type SshHostKeySource = (typeof SSH_HOST_KEY_SOURCES)[number];

/** DATABASE_URL, checked at start: only PostgreSQL URLs select a store. */
function databaseUrlFromEnv(): string | undefined {
  const raw = process.env.DATABASE_URL;
  if (!raw) return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) throw new Error('DATABASE_URL must be a postgres:// or postgresql:// URL (unset: SQLite in DATA_DIR)');
  return raw;
}

/**
 * PACKAGE_STORE unset: the database when it is a PostgreSQL (DATABASE_URL)
 * and no PACKAGE_STORE_DIR is given, so hosts sharing the database share
 * package content with nothing else to set up; otherwise the directory.
 */
export function defaultPackageStore(databaseUrl: string | undefined, dirGiven: boolean): ContentStoreKind {
  return databaseUrl && !dirGiven ? 'database' : 'directory';
}

export function defaultPackageStoreDir(dataDir: string): string {
  return path.join(dataDir, 'packages');
}

/** PACKAGE_STORE and PACKAGE_STORE_DIR of `env` (the process's, or a product's in tests). */
export function packageStoreFromEnv(env: NodeJS.ProcessEnv, dataDir: string, databaseUrl: string | undefined): { packageStore: ContentStoreKind; packageStoreDir: string } {
  const raw = env.PACKAGE_STORE || defaultPackageStore(databaseUrl, !!env.PACKAGE_STORE_DIR);
  if (!(CONTENT_STORE_KINDS as readonly string[]).includes(raw)) throw new Error(`PACKAGE_STORE must be one of ${CONTENT_STORE_KINDS.join(', ')}, got "${raw}"`);
  return { packageStore: raw as ContentStoreKind, packageStoreDir: path.resolve(env.PACKAGE_STORE_DIR || defaultPackageStoreDir(dataDir)) };
}

function hostKeySourceFromEnv(): SshHostKeySource {
  const raw = process.env.SSH_HOST_KEY_SOURCE || 'console';
  if (!(SSH_HOST_KEY_SOURCES as readonly string[]).includes(raw)) {
    throw new Error(`SSH_HOST_KEY_SOURCE must be one of ${SSH_HOST_KEY_SOURCES.join(', ')}, got "${raw}"`);
  }
  return raw as SshHostKeySource;
}

export interface Config {
  dataDir: string;
  /** postgres://... : the product's store is that PostgreSQL (shared by many hosts); unset = SQLite in DATA_DIR. */
  databaseUrl?: string;
  apiHost: string;
  apiPort: number;
  /** Base URL the API puts into Location headers and _links. */
  apiBaseUrl: string;
  temporalPort: number;
  temporalUiPort: number;
  /** host:port of the Temporal frontend; set = external cluster, no dev server. */
  temporalAddress: string;
  externalTemporal: boolean;
  temporalNamespace: string;
  temporalUiUrl: string;
  taskQueue: string;
  vimsimPort: number;
  /** No OS_AUTH_URL: `npm start` runs the embedded cloud (real Keystone and Heat, the simulator for the rest). */
  embeddedCloud: boolean;
  keystonePort: number;
  heatPort: number;
  /** The embedded Octavia's API (OCTAVIA_PORT, 9876). */
  octaviaPort: number;
  /** Heat's task sleep scale in the embedded cloud: 1 = stock Heat; tests use a small value. */
  heatSleepScale: number;
  /** SQLAlchemy URL of the embedded Heat's database (PostgreSQL); unset = SQLite under DATA_DIR. */
  heatDatabaseUrl?: string;
  /**
   * VIM_TRUST_ROLES: the roles a project's trust on a shared VIM delegates (infra/vim-access): member and
   * the role it implies, since a trust-scoped token shows both and Heat's own trust asks for what it shows.
   */
  vimTrustRoles: string[];
  /** Keystone v3 URL of the default VIM (the embedded Keystone unless OS_AUTH_URL is set). */
  defaultVim: { authUrl: string; username: string; password: string; project: string; domain: string; region: string; caFile?: string };
  /**
   * How the API checks callers' tokens: against this Keystone v3, as the
   * service user below (keystonemiddleware's model). Embedded: the embedded
   * Keystone and its `nfv` service user.
   */
  identity: {
    authUrl: string;
    serviceUser: string;
    servicePassword: string;
    serviceProject: string;
    serviceDomain: string;
    /** A validated token is trusted until it expires, but at most this long. */
    tokenCacheTtlMs: number;
    /** A token Keystone refused is refused without asking again for this long. */
    invalidTokenCacheMs: number;
    /** The project whose admins are the cloud's admins (every project's resources); an admin elsewhere acts as a member of its project. */
    adminProject: string;
    adminProjectDomain: string;
    /** After this many failed authentications within failureWindowMs, a client's unknown tokens get 429. */
    failuresPerClient: number;
    failureWindowMs: number;
    /** JSON or YAML file overriding the default role rules (README, "Identity"). */
    policyFile?: string;
  };
  /** Poll interval while waiting for Heat (a workflow timer). */
  heatPollMs: number;
  /** The longest interval between two Heat polls: the interval grows x1.5 per poll up to it. */
  heatPollMaxMs: number;
  /** HEAT_RESOURCE_TYPES: the resource types a VNF package's templates may use (infra/hot/resource-policy.ts). */
  heatResourceTypes: string[];
  logLevel: string;
  /** SSH port of VNFCs for Mgmt Drivers. */
  mgmtSshPort: number;
  /** How long a Mgmt Driver keeps trying to reach a booting VNFC over SSH. */
  sshConnectDeadlineMs: number;
  /** What a VNFC's first SSH host key is checked against (README, "Mgmt Drivers"). */
  sshHostKeySource: SshHostKeySource;
  /** Deadline of a Mgmt Driver script from the package. */
  mgmtScriptTimeoutMs: number;
  /** Address-space limit of a package script (hook or coordinate script), on the scripts worker; 0 = none. */
  scriptsMemoryBytes: number;
  /** Output a package script may write per stream (stdout, stderr) before it is killed. */
  scriptsOutputBytes: number;
  /** What one project may hold (store/quota.ts). */
  quotas: Quotas;
  /** CPU seconds, biggest file and private /tmp size of a package script. */
  scriptsCpuSeconds: number;
  scriptsFileBytes: number;
  scriptsTmpBytes: number;
  /** Ports of its instance's VNFC addresses a package script may connect to, and the operator's extra host:port endpoints. */
  scriptsVnfcPorts: number[];
  scriptsAllow: { host: string; port: number }[];
  /** Workflow runs the worker keeps cached (sticky); beyond it the least recently used are evicted and replayed when they next wake. */
  maxCachedWorkflows: number;
  /**
   * The worker's probe and metrics port (/healthz, /readyz, /metrics): WORKER_METRICS_PORT (WORKER_PROBE_PORT, its first name, is
   * still read), off when unset; on WORKER_METRICS_HOST (default 127.0.0.1; 0.0.0.0 in a pod).
   */
  workerProbe?: { host: string; port: number };
  /** A workflow bundle built ahead (npm run bundle); undefined = the worker bundles its workflows (worker/workflows.ts) at start. */
  workflowBundlePath?: string;
  /** Where package content (uploaded zips, the files of onboarded packages) lives: the product's database, or packageStoreDir. */
  packageStore: ContentStoreKind;
  /** The directory store's directory (PACKAGE_STORE=directory); every API and worker must see the same one. */
  packageStoreDir: string;
  /** The cluster engine (docs/cluster-engine.md). */
  cluster: {
    /** Between two health polls of a cluster (Magnum: 60 s). */
    healthIntervalS: number;
    /** kube-controller-manager's --node-monitor-grace-period on new clusters (unset: Kubernetes' 40 s). */
    nodeMonitorGracePeriod?: string;
    /** The longest wait between two checks of a node or API the engine waits for (they double from 1 s up to it). */
    pollMaxMs: number;
    /** Auto-healing (clusters that ask for it): a node NotReady this long is replaced (Cluster API MachineHealthCheck's 5 min). */
    autoHealAfterS: number;
  };
  /** Magnum's API (seed 003). */
  magnum: {
    /** [quotas]max_clusters_per_project: a project's cluster limit when no quota row says otherwise. */
    maxClustersPerProject: number;
    /** HTTP(S) webhooks every CADF notification is POSTed to (MAGNUM_NOTIFICATION_WEBHOOKS, comma-separated). */
    notificationWebhooks: string[];
    /** The host in publisher_id container-infra.<host>. */
    publisherHost: string;
    /** The first pause before a stuck stack delete is tried again (then doubling, four times). */
    deleteRetryPauseMs: number;
  };
  /** Outbound notifications: ETSI LCM notifications and CADF webhooks (notify/README.md). */
  notifications: {
    /** How long after it was queued a notification is retried before it is marked FAILED (NOTIFICATION_DEADLINE_S, 3 days). */
    deadlineS: number;
    /** The longest pause between two attempts (backoff from 1 s doubling; NOTIFICATION_MAX_RETRY_INTERVAL_S, 10 min). */
    maxRetryIntervalS: number;
    /** Deadline of one POST (and of the test GET of a new subscription's callback): NOTIFICATION_HTTP_TIMEOUT_S, 10 s. */
    httpTimeoutMs: number;
  };
  /** Request and package limits (README, "Limits"). */
  limits: Limits;
}

export interface Limits {
  /** Items per page of an ETSI list (SOL013 §5.4); the rest through the Link rel="next". */
  listPageSize: number;
  /** JSON request body, after decompression. */
  jsonBytes: number;
  /** Nesting of a JSON request body (objects and arrays). */
  jsonDepth: number;
  /** Host header values (host names, without port) the API answers to. */
  allowedHosts: string[];
  /** Uploaded package zip. */
  packageBytes: number;
  /** Sum of a package's inflated entries. */
  packageUnzippedBytes: number;
  /** Inflated / compressed size of one zip entry (entries inflating to at most 4 MiB are exempt). */
  packageRatio: number;
  /** Entries in a package zip. */
  packageEntries: number;
  /** The parsed VNFD model as stored (JSON). */
  packageVnfdBytes: number;
  /** TOSCA.meta and the VNFD's YAML files, read into the worker's memory together. */
  packageVnfdFileBytes: number;
  /** Instances of one VDU: vdu_profile max, initial delta, instantiation levels, scaling deltas. */
  vduInstances: number;
}

/** Hosts the API answers to unless API_ALLOWED_HOSTS says otherwise: loopback, the base URL's host, the bind host. */
function allowedHosts(apiHost: string, apiBaseUrl: string): string[] {
  const listed = (process.env.API_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
  if (listed.length > 0) return listed;
  let baseHost = '';
  try { baseHost = new URL(apiBaseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, ''); } catch { /* checked nowhere else: a bad base URL adds no host */ }
  return [...new Set(['localhost', '127.0.0.1', '::1', baseHost, apiHost.toLowerCase()].filter(Boolean))];
}

function loadLimits(apiHost: string, apiBaseUrl: string): Limits {
  const listPageSize = intFromEnv('LIST_PAGE_SIZE', 100);
  if (listPageSize < 1 || listPageSize > 10_000) throw new Error(`LIST_PAGE_SIZE must be between 1 and 10000, got ${listPageSize}`);
  return {
    listPageSize,
    jsonBytes: intFromEnv('API_MAX_JSON_BYTES', 1024 * 1024),
    jsonDepth: intFromEnv('API_MAX_JSON_DEPTH', 64),
    allowedHosts: allowedHosts(apiHost, apiBaseUrl),
    packageBytes: intFromEnv('PACKAGE_MAX_BYTES', 1024 * 1024 * 1024),
    packageUnzippedBytes: intFromEnv('PACKAGE_MAX_UNZIPPED_BYTES', PKG.unzippedBytes),
    packageRatio: intFromEnv('PACKAGE_MAX_RATIO', PKG.ratio),
    packageEntries: intFromEnv('PACKAGE_MAX_ENTRIES', PKG.entries),
    packageVnfdBytes: intFromEnv('PACKAGE_MAX_VNFD_BYTES', PKG.vnfdBytes),
    packageVnfdFileBytes: intFromEnv('PACKAGE_MAX_VNFD_FILES_BYTES', PKG.vnfdFileBytes),
    vduInstances: intFromEnv('MAX_VDU_INSTANCES', PKG.vduInstances),
  };
}

export function loadConfig(): Config {
  const dataDir = path.resolve(process.env.DATA_DIR || './data');
  const apiHost = process.env.API_HOST || '127.0.0.1';
  const apiPort = intFromEnv('API_PORT', 9890);
  const temporalPort = intFromEnv('TEMPORAL_PORT', 7233);
  const temporalUiPort = intFromEnv('TEMPORAL_UI_PORT', 8233);
  const externalTemporal = !!process.env.TEMPORAL_ADDRESS;
  const vimsimPort = intFromEnv('VIMSIM_PORT', 9891);
  const keystonePort = intFromEnv('KEYSTONE_PORT', 5000);
  const heatSleepScale = Number(process.env.HEAT_TASK_SLEEP_SCALE || '1');
  if (!(heatSleepScale > 0 && heatSleepScale <= 1)) throw new Error(`HEAT_TASK_SLEEP_SCALE must be in (0, 1], got "${process.env.HEAT_TASK_SLEEP_SCALE}"`);
  const apiBaseUrl = process.env.API_BASE_URL || `http://${apiHost}:${apiPort}`;
  const databaseUrl = databaseUrlFromEnv();
  return {
    dataDir,
    apiHost,
    apiPort,
    apiBaseUrl,
    temporalPort,
    temporalUiPort,
    temporalAddress: process.env.TEMPORAL_ADDRESS || `127.0.0.1:${temporalPort}`,
    externalTemporal,
    temporalNamespace: process.env.TEMPORAL_NAMESPACE || 'default',
    temporalUiUrl: process.env.TEMPORAL_UI_URL || `http://127.0.0.1:${temporalUiPort}`,
    taskQueue: process.env.TASK_QUEUE || 'nfv-lcm',
    vimsimPort,
    embeddedCloud: !process.env.OS_AUTH_URL,
    keystonePort,
    heatPort: intFromEnv('HEAT_PORT', 8004),
    octaviaPort: intFromEnv('OCTAVIA_PORT', 9876),
    heatSleepScale,
    databaseUrl,
    heatDatabaseUrl: process.env.HEAT_DATABASE_URL || undefined,
    vimTrustRoles: (process.env.VIM_TRUST_ROLES || 'member,reader').split(',').map((r) => r.trim()).filter(Boolean),
    defaultVim: {
      authUrl: process.env.OS_AUTH_URL || `http://127.0.0.1:${keystonePort}/v3`,
      username: process.env.OS_USERNAME || 'admin',
      // the embedded cloud's admin when no OS_* names another cloud (common/embedded-admin.ts)
      password: process.env.OS_PASSWORD || (process.env.OS_AUTH_URL ? '' : embeddedAdminPassword(dataDir) ?? ''),
      project: process.env.OS_PROJECT_NAME || 'admin',
      domain: process.env.OS_USER_DOMAIN_NAME || 'Default',
      region: process.env.OS_REGION_NAME || 'RegionOne',
      caFile: process.env.OS_CACERT || undefined,
    },
    identity: {
      authUrl: process.env.KEYSTONE_AUTH_URL || process.env.OS_AUTH_URL || `http://127.0.0.1:${keystonePort}/v3`,
      serviceUser: process.env.NFV_SERVICE_USER || 'nfv',
      servicePassword: process.env.NFV_SERVICE_PASSWORD || '',
      serviceProject: process.env.NFV_SERVICE_PROJECT || 'service',
      serviceDomain: process.env.NFV_SERVICE_DOMAIN || 'Default',
      tokenCacheTtlMs: intFromEnv('AUTH_TOKEN_CACHE_TTL_S', 300) * 1000,
      invalidTokenCacheMs: intFromEnv('AUTH_INVALID_TOKEN_CACHE_S', 10) * 1000,
      adminProject: process.env.AUTH_ADMIN_PROJECT || 'admin',
      adminProjectDomain: process.env.AUTH_ADMIN_PROJECT_DOMAIN || 'Default',
      failuresPerClient: intFromEnv('AUTH_FAILURES_PER_CLIENT', 50),
      failureWindowMs: intFromEnv('AUTH_FAILURE_WINDOW_S', 60) * 1000,
      policyFile: process.env.POLICY_FILE || undefined,
    },
    heatPollMs: intFromEnv('HEAT_POLL_MS', 1000),
    heatPollMaxMs: intFromEnv('HEAT_POLL_MAX_MS', 15_000),
    heatResourceTypes: resourceTypesFromSetting(process.env.HEAT_RESOURCE_TYPES),
    logLevel: process.env.LOG_LEVEL || 'info',
    mgmtSshPort: intFromEnv('MGMT_SSH_PORT', 22),
    sshConnectDeadlineMs: intFromEnv('SSH_CONNECT_DEADLINE_S', 300) * 1000,
    sshHostKeySource: hostKeySourceFromEnv(),
    mgmtScriptTimeoutMs: intFromEnv('MGMT_SCRIPT_TIMEOUT_S', 1800) * 1000,
    scriptsMemoryBytes: intFromEnv('SCRIPTS_MEMORY_MB', 2048) * 1024 * 1024,
    scriptsOutputBytes: intFromEnv('SCRIPTS_OUTPUT_KB', 64) * 1024,
    quotas: {
      packages: intFromEnv(QUOTA_SETTINGS.packages, 100),
      packageBytes: parseSize(process.env.QUOTA_PACKAGE_BYTES, QUOTA_SETTINGS.packageBytes, 20 * 1024 ** 3),
      instances: intFromEnv(QUOTA_SETTINGS.instances, 100),
      subscriptions: intFromEnv(QUOTA_SETTINGS.subscriptions, 100),
      clusterNodes: intFromEnv(QUOTA_SETTINGS.clusterNodes, 200),
    },
    scriptsCpuSeconds: intFromEnv('SCRIPTS_CPU_S', 600),
    scriptsFileBytes: intFromEnv('SCRIPTS_FILE_MB', 256) * 1024 * 1024,
    scriptsTmpBytes: intFromEnv('SCRIPTS_TMP_MB', 256) * 1024 * 1024,
    scriptsVnfcPorts: portsFromSetting('SCRIPTS_VNFC_PORTS', process.env.SCRIPTS_VNFC_PORTS, [intFromEnv('MGMT_SSH_PORT', 22)]),
    scriptsAllow: endpointsFromSetting('SCRIPTS_ALLOW', process.env.SCRIPTS_ALLOW),
    maxCachedWorkflows: intFromEnv('WORKER_MAX_CACHED_WORKFLOWS', DEFAULT_MAX_CACHED_WORKFLOWS),
    workerProbe: workerPortSetting(),
    workflowBundlePath: process.env.WORKFLOW_BUNDLE ? path.resolve(process.env.WORKFLOW_BUNDLE) : undefined,
    ...packageStoreFromEnv(process.env, dataDir, databaseUrl),
    cluster: {
      healthIntervalS: intFromEnv('CLUSTER_HEALTH_INTERVAL_S', 60),
      nodeMonitorGracePeriod: goDurationFromEnv('CLUSTER_NODE_MONITOR_GRACE_PERIOD'),
      pollMaxMs: intFromEnv('CLUSTER_POLL_MAX_MS', 10_000),
      autoHealAfterS: intFromEnv('CLUSTER_AUTO_HEAL_AFTER_S', 300),
    },
    magnum: {
      maxClustersPerProject: intFromEnv('MAGNUM_MAX_CLUSTERS_PER_PROJECT', 20),
      notificationWebhooks: (process.env.MAGNUM_NOTIFICATION_WEBHOOKS ?? '').split(',').map((u) => u.trim()).filter(Boolean),
      publisherHost: process.env.MAGNUM_PUBLISHER_HOST || os.hostname(),
      deleteRetryPauseMs: intFromEnv('MAGNUM_DELETE_RETRY_PAUSE_S', 30) * 1000,
    },
    notifications: {
      deadlineS: intFromEnv('NOTIFICATION_DEADLINE_S', 3 * 24 * 3600),
      maxRetryIntervalS: Math.max(1, intFromEnv('NOTIFICATION_MAX_RETRY_INTERVAL_S', 600)),
      httpTimeoutMs: Math.max(1, intFromEnv('NOTIFICATION_HTTP_TIMEOUT_S', 10)) * 1000,
    },
    limits: loadLimits(apiHost, apiBaseUrl),
  };
}

/** WORKER_METRICS_PORT/HOST, or the names the probe port had first (WORKER_PROBE_PORT/HOST). */
function workerPortSetting(): { host: string; port: number } | undefined {
  const name = process.env.WORKER_METRICS_PORT ? 'WORKER_METRICS_PORT' : process.env.WORKER_PROBE_PORT ? 'WORKER_PROBE_PORT' : undefined;
  if (!name) return undefined;
  return { host: process.env.WORKER_METRICS_HOST || process.env.WORKER_PROBE_HOST || '127.0.0.1', port: intFromEnv(name, 0) };
}
