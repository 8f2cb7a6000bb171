/**
 * The scripts worker: runs package scripts (Vnflcm hook scripts, change_vnfpkg
 * coordinate scripts) and nothing else, on task queue `<TASK_QUEUE>-scripts`.
 * It holds no database, no DATA_DIR and no SECRET_KEY: only the channel key
 * (SCRIPTS_CHANNEL_KEY, derived from SECRET_KEY by whoever starts it) that
 * opens the jobs the worker sealed. Scripts run sandboxed
 * (mgmt/script-sandbox.ts); without root it refuses to start unless the
 * operator asked for SCRIPTS_SANDBOX=off.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { scriptActivities } from '../lcm-activities/scripts';
import { loadConfig } from '../common/config';
import { intFromEnv } from '@nfv-orchestrator/lib/env';
import { createLogger } from '../common/log';
import { temporalConnectionSettings } from '../common/temporal';
import { scriptChannelKeyFromEnv } from '../mgmt/script-channel';
import { removeStaleScriptDirs } from '../mgmt/script-runner';
import { sandboxFromEnv } from '../mgmt/script-sandbox';
import { ProjectShare } from '../mgmt/script-share';
import { scriptsTaskQueue } from '../workflow-steps/task-queues';

async function main() {
  const cfg = loadConfig();
  const temporal = temporalConnectionSettings(cfg);
  const log = createLogger('scripts-worker', cfg.logLevel);
  const channelKey = scriptChannelKeyFromEnv();
  const sandbox = sandboxFromEnv(process.env, (msg) => log.warn({ uid: process.getuid?.() }, msg));
  removeStaleScriptDirs();

  const taskQueue = scriptsTaskQueue(cfg.taskQueue);
  const connection = await NativeConnection.connect({ address: temporal.address, ...(temporal.tls ? { tls: temporal.tls } : {}) });
  const worker = await Worker.create({
    connection,
    namespace: cfg.temporalNamespace,
    taskQueue,
    activities: scriptActivities({ channelKey, sandbox, share: new ProjectShare(Math.max(1, intFromEnv('SCRIPTS_PER_PROJECT', 4))), log }),
    // many more than one project can hold (one open operation per instance, QUOTA_INSTANCES): the per-project share is what limits
    maxConcurrentActivityTaskExecutions: intFromEnv('SCRIPTS_SLOTS', 512),
    // Heartbeats (every 5 s) reach the server at least this often: an operator's cancel kills the script within seconds.
    maxHeartbeatThrottleInterval: '5s',
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => worker.shutdown());
  log.info({ taskQueue, temporal: temporal.address, temporalSecurity: temporal.security, sandbox: sandbox.mode, uids: sandbox.uids ? `${sandbox.uids.first}-${sandbox.uids.last}` : null }, 'scripts worker started');
  await worker.run();
  await connection.close();
  log.info('scripts worker stopped');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
