/**
 * The API's Prometheus side: every answered request counted and timed by
 * method, route template (never the path: it holds ids) and status class,
 * and /metrics, with the store's gauges read at scrape time. /metrics needs
 * no token (Prometheus scrapes without one) but answers only callers whose
 * address is in METRICS_ALLOWED_CIDRS (default loopback): the gauges count
 * every project's operations and clusters.
 */
import { BlockList, isIPv4 } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Gauge } from 'prom-client';
import { readStoreGauges } from '../store/repos/gauges';
import type { Store } from '../store/store';
import { httpRequestDuration, httpRequests, methodLabel, metricsRegistry, statusClass } from '../common/metrics';

/** Counts and times each request when its answer is sent. */
export function httpMetrics(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const end = httpRequestDuration.startTimer();
    res.once('finish', () => {
      const labels = { method: methodLabel(req.method), route: routeTemplate(req), status_class: statusClass(res.statusCode) };
      httpRequests.inc(labels);
      end(labels);
    });
    next();
  };
}

/** The matched route as declared ("/vnflcm/v1/vnf_instances/:vnfInstanceId"); "unmatched" when none answered (404, or refused before routing). */
export function routeTemplate(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (!route || (typeof route.path !== 'string')) return 'unmatched';
  return `${req.baseUrl}${route.path}` || '/';
}

/** Where /metrics may be read from: METRICS_ALLOWED_CIDRS, comma-separated (default loopback). */
export function metricsAllowList(spec = process.env.METRICS_ALLOWED_CIDRS || '127.0.0.0/8,::1/128'): BlockList {
  const list = new BlockList();
  for (const cidr of spec.split(',').map((c) => c.trim()).filter(Boolean)) {
    const [address, bits] = cidr.split('/');
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    const prefix = bits === undefined ? (type === 'ipv4' ? 32 : 128) : Number(bits);
    if (!Number.isInteger(prefix)) throw new Error(`METRICS_ALLOWED_CIDRS: "${cidr}" is not an address or CIDR`);
    list.addSubnet(address, prefix, type);
  }
  return list;
}

function allowed(list: BlockList, address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return isIPv4(v4) ? list.check(v4, 'ipv4') : list.check(address, 'ipv6');
}

const ageSeconds = (iso: string | undefined) => (iso ? Math.max(0, (Date.now() - Date.parse(iso)) / 1000) : 0);

let gaugeStore: Store | undefined;
/** The store gauges, registered once per process; they read the store of the last app made (one per process outside tests). */
function registerStoreGauges(store: Store): void {
  const first = !gaugeStore;
  gaugeStore = store;
  if (!first) return;
  const read = () => readStoreGauges(gaugeStore!);
  let pending: ReturnType<typeof read> | undefined;
  // one read per scrape for all gauges
  const once = () => (pending ??= read().finally(() => { setImmediate(() => { pending = undefined; }); }));
  const registers = [metricsRegistry];
  new Gauge({
    name: 'nfv_lcm_operations_in_state', help: 'Operations not yet ended, by api and state (ETSI STARTING, PROCESSING, ROLLING_BACK, FAILED_TEMP; Magnum *_IN_PROGRESS).',
    labelNames: ['api', 'state'] as const, registers,
    async collect() {
      const g = await once();
      for (const [state, n] of Object.entries(g.etsiByState)) this.set({ api: 'etsi', state }, n);
      for (const [state, n] of Object.entries(g.magnumInProgress)) this.set({ api: 'magnum', state }, n);
    },
  });
  new Gauge({
    name: 'nfv_lcm_failed_temp_oldest_age_seconds', help: 'How long the longest-parked FAILED_TEMP operation has waited for its operator; 0 when none.', registers,
    async collect() { this.set(ageSeconds((await once()).failedTempOldest)); },
  });
  new Gauge({
    name: 'nfv_lcm_operations_parked_on_coordination', help: 'Operations waiting on an EM\'s coordination result (202 polling).', registers,
    async collect() { this.set((await once()).parkedOnCoordination); },
  });
  new Gauge({
    name: 'nfv_notification_outbox_backlog', help: 'Notifications written and not yet delivered (ETSI LCM and CADF).', registers,
    async collect() { this.set((await once()).outboxBacklog); },
  });
  new Gauge({
    name: 'nfv_notification_outbox_oldest_age_seconds', help: 'Age of the oldest undelivered notification; 0 when none waits.', registers,
    async collect() { this.set(ageSeconds((await once()).outboxOldest)); },
  });
  new Gauge({
    name: 'nfv_clusters_by_health', help: 'Kubernetes clusters by health status (HEALTHY, UNHEALTHY, UNKNOWN: not yet polled).',
    labelNames: ['health_status'] as const, registers,
    async collect() {
      for (const [health_status, n] of Object.entries((await once()).clustersByHealth)) this.set({ health_status }, n);
    },
  });
}

/** GET /metrics: the Prometheus text format, to allowed addresses only; from others it is any unknown path (401 without a token, else 404). */
export function metricsRoute(store: Store, allow = metricsAllowList()): RequestHandler {
  registerStoreGauges(store);
  return (req, res, next) => {
    if (!allowed(allow, req.socket.remoteAddress)) return next();
    metricsRegistry.metrics().then((body) => { res.type(metricsRegistry.contentType).send(body); }, next);
  };
}
