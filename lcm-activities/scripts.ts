/**
 * The activity of the scripts worker (worker/scripts-main.ts, task queue
 * `<TASK_QUEUE>-scripts`): opens a sealed script job, runs it in the sandbox
 * (mgmt/script-runner.ts) heartbeating, and returns its exit and its masked
 * output. A cancelled activity kills the script and all it started. Nothing here
 * touches the database or DATA_DIR: the worker prepares and seals the job.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Logger } from '../common/log';
import { openScriptJob, type ScriptJob, type ScriptOutcome } from '../mgmt/script-channel';
import { runSandboxed } from '../mgmt/script-runner';
import type { Sandbox } from '../mgmt/script-sandbox';
import type { ProjectShare } from '../mgmt/script-share';

export function scriptActivities(o: { channelKey: Buffer; sandbox: Sandbox; share: ProjectShare; log: Logger }) {
  return {
    async runPackageScript({ sealed }: { sealed: string }): Promise<ScriptOutcome> {
      let job: ScriptJob;
      try {
        job = openScriptJob(o.channelKey, sealed);
      } catch {
        // Another installation's job, or SCRIPTS_CHANNEL_KEY not derived from this SECRET_KEY.
        throw ApplicationFailure.nonRetryable('the scripts worker cannot open this script job: its SCRIPTS_CHANNEL_KEY does not match the worker\'s SECRET_KEY', 'ScriptChannel');
      }
      const ctx = Context.current();
      const started = Date.now();
      const attempt = ctx.info.attempt;
      const project = job.project ?? '';
      if (o.share.runningFor(project) >= o.share.perProject) o.log.info({ script: job.name, project }, 'package script waits for its project\'s turn');
      const release = await o.share.acquire(project, { signal: ctx.cancellationSignal, onTick: () => ctx.heartbeat() });
      o.log.info({ script: job.name, attempt, workflowId: ctx.info.workflowExecution?.workflowId }, 'package script started');
      try {
        const r = await runSandboxed(job, { sandbox: o.sandbox, signal: ctx.cancellationSignal, onTick: () => ctx.heartbeat() });
        o.log.info({ script: job.name, exitCode: r.exitCode, signal: r.signal, ms: Date.now() - started }, 'package script finished');
        return r;
      } catch (e) {
        o.log.warn({ script: job.name, ms: Date.now() - started, reason: (e as Error).message }, 'package script stopped');
        throw e;
      } finally {
        release();
      }
    },
  };
}

export type ScriptActivities = ReturnType<typeof scriptActivities>;
