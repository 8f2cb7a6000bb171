/**
 * The Temporal worker: runs every LCM workflow and activity on one task queue.
 * Stateless apart from the shared database; run as many as you like.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { loadConfig } from '../common/config';
import { outboundSettings } from '../common/outbound';
import { openStore } from '../common/db';
import { createLogger } from '../common/log';
import { SecretBox } from '../common/secrets';
import { connectClient, ensureSearchAttributes, temporalConnectionSettings } from '../common/temporal';
import { bundleInChild } from './workflow-bundle';

async function main() {
  const cfg = loadConfig();
  outboundSettings(); // a malformed OUTBOUND_* setting stops the start, not the first call
  // TEMPORAL_TLS* read and checked first: a bad setting stops the worker before anything else.
  const temporal = temporalConnectionSettings(cfg);
  const log = createLogger('worker', cfg.logLevel);
  const db = await openStore(cfg);
  const box = SecretBox.fromEnvOrFile(cfg.dataDir);
  const client = await connectClient(cfg);
  await ensureSearchAttributes(client, cfg.temporalNamespace);
  await client.connection.close();

  const connection = await NativeConnection.connect({ address: temporal.address, ...(temporal.tls ? { tls: temporal.tls } : {}) })
    .catch((e: Error) => { throw new Error(`cannot connect to Temporal at ${temporal.address} over ${temporal.security}: ${e.message}`, { cause: e }); });
  // A bundle built ahead starts the worker at once and is exactly the code that was tested; else bundle now, in a child.
  const built = cfg.workflowBundlePath ? undefined : await bundleInChild();
  const worker = await Worker.create({
    connection,
    namespace: cfg.temporalNamespace,
    taskQueue: cfg.taskQueue,
    workflowBundle: { codePath: cfg.workflowBundlePath ?? built!.codePath },
    activities: createActivities({ db, box, cfg, log }),
    // A cancel reaches a long activity with the answer to its heartbeat: send them often enough that a
    // FORCEFUL cancel stops a hook within seconds, not the SDK's default of up to a minute.
    maxHeartbeatThrottleInterval: '5s',
    // A cap trades memory for replays: a run evicted while it waits is replayed when it wakes. Ops parked on coordination
    // wake at every Retry-After, so a cap below the runs waking in turn replays on every wake (docs/benchmarks.md, "Parked ops").
    ...(cfg.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: cfg.maxCachedWorkflows } : {}),
  });
  built?.remove(); // read by Worker.create
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => worker.shutdown());
  log.info({ taskQueue: cfg.taskQueue, temporal: temporal.address, temporalSecurity: temporal.security }, 'worker started');
  await worker.run();
  await connection.close();
  await db.close();
  log.info('worker stopped');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
