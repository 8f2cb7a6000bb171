/**
 * The worker's keep-alive (worker/keep-alive.ts) on a real Temporal server:
 * an LCM activity slower than its 30 s heartbeat timeout that heartbeats
 * once and then goes silent (a slow Heat call) runs to its end, once, and
 * the details it sent itself stay those the server holds.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { StackStatus } from '../../infra/stack-driver';
import { keepAlive } from '../../worker/keep-alive';
import { startProbeWorker, type ProbeWorker } from '../support/probe-worker';

/** Longer than the LCM activities' 30 s heartbeat timeout (workflow-steps/activities.ts OUTSIDE). */
const SLOW_CALL_MS = 32_000;
const attempts: Record<string, number[]> = {};
let probe: ProbeWorker;

beforeAll(async () => {
  probe = await startProbeWorker('keep-alive-probe', require.resolve('../workflows/keep-alive-probe'), {
    async stackStatus(): Promise<StackStatus> {
      const { attempt, workflowExecution } = Context.current().info;
      (attempts[workflowExecution?.workflowId ?? ''] ??= []).push(attempt);
      Context.current().heartbeat({ step: 'asked Heat' });
      if (attempt === 1) await new Promise((r) => setTimeout(r, SLOW_CALL_MS));
      return { id: 'probe-id', name: 'probe', status: 'CREATE_COMPLETE' };
    },
  }, { interceptors: { activity: [keepAlive] } });
});

afterAll(() => probe.stop());

test('a silent activity slower than its heartbeat timeout runs once, its own heartbeat details kept', async () => {
  const workflowId = randomUUID();
  const handle = await probe.client.workflow.start('stackStatusThroughActs', { taskQueue: probe.taskQueue, workflowId });
  await new Promise((r) => setTimeout(r, 25_000)); // two keep-alive beats after the activity's own
  const pending = (await handle.describe()).raw.pendingActivities ?? [];
  const details = pending[0]?.heartbeatDetails?.payloads?.[0]?.data;
  expect(details && JSON.parse(Buffer.from(details).toString())).toEqual({ step: 'asked Heat' });
  expect(await handle.result()).toBe('CREATE_COMPLETE');
  expect(attempts[workflowId]).toEqual([1]); // without the keep-alive: timed out after 30 s, then attempt 2
}, 60_000);
