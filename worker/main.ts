/**
 * The Temporal worker: runs every LCM workflow and activity on its task queue,
 * and the long polling waits on the "-waits" queue beside it (workflow-steps/task-queues.ts).
 * Stateless apart from the shared database; run as many as you like.
 */
import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { Context } from '@temporalio/activity';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from './activities';
import { keepAlive } from './keep-alive';
import { loadConfig } from '../common/config';
import { outboundSettings } from '../common/outbound';
import { openStore } from '../store';
import { createLogger } from '../common/log';
import { SecretBox } from '../common/secrets';
import { connectClient, ensureSearchAttributes, temporalConnectionSettings } from '../common/temporal';
import { bundleInChild } from './workflow-bundle';
import { waitsTaskQueue } from '../workflow-steps/task-queues';
import { coordinationExchanges } from '../ops/vnflcm/change-vnfpkg/coordination-exchanges';
import { startCoordinationPoller } from '../ops/vnflcm/change-vnfpkg/coordination-parking';
import { intFromEnv } from '@nfv-orchestrator/lib/env';
import { keystoneCheck, storeCheck, temporalCheck } from '../infra/readiness';
import { startProbeServer } from './probes';
import { countRetries, workerMetrics } from './metrics';
import { freePort } from '@nfv-orchestrator/lib/free-port';
import { metricsOn } from '../common/metrics';
import { startTracing } from '../infra/telemetry';

/** A span per activity, a child of its workflow's (from the task's headers); the activity's calls outside are its children. */
const traceActivities = (ctx: Context) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) });

async function main() {
  const tracing = startTracing('nfv-worker'); // first: the clients made below are traced
  const cfg = loadConfig();
  outboundSettings(); // a malformed OUTBOUND_* setting stops the start, not the first call
  // TEMPORAL_TLS* read and checked first: a bad setting stops the worker before anything else.
  const temporal = temporalConnectionSettings(cfg);
  const log = createLogger('worker', cfg.logLevel);
  // The SDK's own worker metrics on a loopback port, served with ours on the metrics port (before any connection: the runtime is made once).
  const sdkMetrics = cfg.workerProbe && metricsOn ? `127.0.0.1:${await freePort()}` : undefined;
  if (sdkMetrics) {
    Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: sdkMetrics, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } } } });
  }
  const db = await openStore(cfg);
  const box = SecretBox.fromEnvOrFile(cfg.dataDir);
  const client = await connectClient(cfg);
  await ensureSearchAttributes(client, cfg.temporalNamespace);

  const connection = await NativeConnection.connect({ address: temporal.address, ...(temporal.tls ? { tls: temporal.tls } : {}) })
    .catch((e: Error) => { throw new Error(`cannot connect to Temporal at ${temporal.address} over ${temporal.security}: ${e.message}`, { cause: e }); });
  // A bundle built ahead starts the worker at once and is exactly the code that was tested; else bundle now, in a child.
  const built = cfg.workflowBundlePath ? undefined : await bundleInChild();
  const activities = createActivities({ db, box, cfg, log });
  const worker = await Worker.create({
    connection,
    namespace: cfg.temporalNamespace,
    taskQueue: cfg.taskQueue,
    workflowBundle: { codePath: cfg.workflowBundlePath ?? built!.codePath },
    activities,
    // an activity silent for a third of its heartbeat timeout is heartbeated for (worker/keep-alive.ts)
    interceptors: { activity: [keepAlive, ...(metricsOn ? [countRetries] : []), traceActivities] },
    // the workflows' spans (the bundle's OpenTelemetry interceptors) leave through this sink
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
    // A cancel reaches a long activity with the answer to its heartbeat: send them often enough that a
    // FORCEFUL cancel stops a hook within seconds, not the SDK's default of up to a minute.
    maxHeartbeatThrottleInterval: '5s',
    // A cap trades memory for replays: a run evicted while it waits is replayed when it next wakes. A parked op's wait is a
    // row in the store (the poller below) and its workflow does not wake until it is decided (docs/benchmarks.md,
    // "Worker memory with parked ops").
    maxCachedWorkflows: cfg.maxCachedWorkflows,
  });
  built?.remove(); // read by Worker.create
  // Coordinations parked on their EMs: polled from the store, their activities completed through the client.
  const poller = startCoordinationPoller({ db, ...coordinationExchanges({ db, box, cfg }), completions: client.activity, log });
  // Histories from before COORD_PARK_PATCH wait on the waits queue, one heartbeating activity per parked
  // coordination: many slots cost little, and they never hold the main queue's slots.
  const waits = await Worker.create({
    connection,
    namespace: cfg.temporalNamespace,
    taskQueue: waitsTaskQueue(cfg.taskQueue),
    activities: { awaitCoordination: activities.awaitCoordination },
    interceptors: { activity: [traceActivities] },
    maxConcurrentActivityTaskExecutions: intFromEnv('WAIT_SLOTS', 5000),
    maxHeartbeatThrottleInterval: '10s',
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { worker.shutdown(); waits.shutdown(); });
  const probes = cfg.workerProbe && await startProbeServer({
    ...cfg.workerProbe, log,
    alive: () => [worker, waits].every((w) => ['INITIALIZED', 'RUNNING'].includes(w.getState())),
    checks: [storeCheck(db), temporalCheck(client), keystoneCheck(cfg.identity.authUrl)],
    metrics: metricsOn ? () => workerMetrics(sdkMetrics) : undefined,
  });
  log.info({ taskQueue: cfg.taskQueue, temporal: temporal.address, temporalSecurity: temporal.security, probePort: probes?.port }, 'worker started');
  await Promise.all([worker.run(), waits.run()]);
  await probes?.close();
  await poller.stop();
  await client.connection.close();
  await connection.close();
  await db.close();
  await tracing.shutdown();
  log.info('worker stopped');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
