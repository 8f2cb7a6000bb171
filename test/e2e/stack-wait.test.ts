/**
 * The one stack wait of VNF and cluster operations (workflow-steps/stack.ts
 * pollStack), its decisions on a real Temporal server with scripted Heat
 * statuses: the poll schedule, a stack Heat failed when its engine went down
 * driven on (at most three times), any other failure and a vanished stack
 * failing the step with what Heat said.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import type { StackStatus } from '../../infra/stack-driver';
import type { StackAction } from '../../workflow-steps/stack';
import { startProbeWorker, type ProbeWorker } from '../support/probe-worker';

const WENT_DOWN = 'Engine went down during stack CREATE';
/** Per workflow: the statuses Heat answers in turn (the last one again when they run out; null: no stack), and the calls made. */
const scripts: Record<string, { statuses: (Pick<StackStatus, 'status' | 'reason'> | null)[]; calls: string[] }> = {};
let probe: ProbeWorker;

const scriptOf = () => scripts[Context.current().info.workflowExecution?.workflowId ?? '']!;

beforeAll(async () => {
  probe = await startProbeWorker('stack-wait-probe', require.resolve('../workflows/stack-wait-probe'), {
    async status(): Promise<StackStatus | null> {
      const s = scriptOf();
      const next = s.statuses.length > 1 ? s.statuses.shift()! : s.statuses[0];
      s.calls.push(next ? `status ${next.status}` : 'status none');
      return next && { id: 'probe-id', name: 'probe', ...next };
    },
    async redrive(): Promise<'UPDATE'> {
      scriptOf().calls.push('redrive');
      return 'UPDATE';
    },
    async send(ms: number): Promise<void> {
      scriptOf().calls.push('send');
      await new Promise((r) => setTimeout(r, ms));
    },
  });
});

afterAll(() => probe.stop());

async function run(action: StackAction, statuses: (Pick<StackStatus, 'status' | 'reason'> | null)[], sendMs?: number) {
  const workflowId = randomUUID();
  scripts[workflowId] = { statuses, calls: [] };
  const handle = await probe.client.workflow.start('stackWaitProbe', { taskQueue: probe.taskQueue, workflowId, args: sendMs === undefined ? [action] : [action, sendMs] });
  const failure = await handle.result().then(() => undefined, (e: unknown) => (e instanceof WorkflowFailedError ? e.cause?.message : String(e)));
  const timers = (await handle.fetchHistory()).events!
    .filter((e) => e.timerStartedEventAttributes)
    .map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds ?? 0) * 1000 + Math.round((e.timerStartedEventAttributes!.startToFireTimeout!.nanos ?? 0) / 1e6));
  return { failure, calls: scripts[workflowId].calls, timers };
}

const st = (status: string, reason?: string) => ({ status, reason });

test('polls with a backoff (x1.5 up to the longest interval) until the action completes', async () => {
  const r = await run('CREATE', [st('CREATE_IN_PROGRESS'), st('CREATE_IN_PROGRESS'), st('CREATE_IN_PROGRESS'), st('CREATE_IN_PROGRESS'), st('CREATE_COMPLETE')]);
  expect(r).toEqual({ failure: undefined, calls: [...Array(4).fill('status CREATE_IN_PROGRESS'), 'status CREATE_COMPLETE'], timers: [10, 15, 20, 20] });
});

test('after a request Heat was slow to answer, no poll comes sooner than half the time since it was sent', async () => {
  const r = await run('CREATE', [st('CREATE_IN_PROGRESS'), st('CREATE_IN_PROGRESS'), st('CREATE_COMPLETE')], 600);
  expect(r.calls).toEqual(['send', 'status CREATE_IN_PROGRESS', 'status CREATE_IN_PROGRESS', 'status CREATE_COMPLETE']);
  // the backoff alone would wait 10 ms, then 15 ms
  expect(r.timers[0]).toBeGreaterThanOrEqual(300);
  expect(r.timers[0]).toBeLessThan(5_000);
  expect(r.timers[1]).toBeGreaterThanOrEqual(Math.ceil(r.timers[0] * 1.5));
});

test('a stack failed by an engine restart is driven on, then waited for as an update', async () => {
  const r = await run('CREATE', [st('CREATE_IN_PROGRESS'), st('CREATE_FAILED', WENT_DOWN), st('UPDATE_IN_PROGRESS'), st('UPDATE_COMPLETE')]);
  expect(r.failure).toBeUndefined();
  expect(r.calls).toEqual(['status CREATE_IN_PROGRESS', 'status CREATE_FAILED', 'redrive', 'status UPDATE_IN_PROGRESS', 'status UPDATE_COMPLETE']);
  expect(r.timers).toEqual([10, 10]); // the schedule starts again after a redrive
});

test('three redrives at most: a fourth engine failure fails the step with Heat\'s reason', async () => {
  const r = await run('CREATE', [st('CREATE_FAILED', WENT_DOWN), st('UPDATE_FAILED', WENT_DOWN)]);
  expect(r.calls.filter((c) => c === 'redrive')).toHaveLength(3);
  expect(r.failure).toBe(`stack probe UPDATE_FAILED: ${WENT_DOWN}`);
});

test('any other failure fails the step at once with Heat\'s reason, without a redrive', async () => {
  const r = await run('UPDATE', [st('UPDATE_IN_PROGRESS'), st('UPDATE_FAILED', 'Resource UPDATE failed: Quota exceeded')]);
  expect(r.calls).toEqual(['status UPDATE_IN_PROGRESS', 'status UPDATE_FAILED']);
  expect(r.failure).toBe('stack probe UPDATE_FAILED: Resource UPDATE failed: Quota exceeded');
});

test('a vanished stack ends a delete and fails a create', async () => {
  expect(await run('DELETE', [st('DELETE_IN_PROGRESS'), null])).toEqual({ failure: undefined, calls: ['status DELETE_IN_PROGRESS', 'status none'], timers: [10] });
  expect((await run('CREATE', [null])).failure).toBe('the probe stack is gone');
});
