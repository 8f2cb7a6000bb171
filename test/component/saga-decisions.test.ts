/**
 * The saga engine's decisions (engine/saga.ts), on a local Temporal server
 * of the SDK's TestWorkflowEnvironment (the project's Temporal CLI; the
 * engine waits on no timer, so no time needs skipping): what a failure
 * leads to under each policy, retry, rollback and fail of a parked saga,
 * GRACEFUL and FORCEFUL cancel in each phase, the planning, and the
 * refusals of decisions the phase does not allow. The steps are the test's
 * activities (test/workflows/saga-probe.ts), scripted to fail or hang.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { cancelUpdate, CONFLICT, failUpdate, retryUpdate, rollbackUpdate, stateQuery, UNPROCESSABLE } from '../../engine/contracts';
import type { SagaStatus } from '../../engine/saga';
import { findTemporalCli } from '../../runtime/temporal-cli';
import type { SagaProbeActivities, SagaProbeInput } from '../workflows/saga-probe';

interface Script {
  /** How many times each step fails before it succeeds (Infinity: always). */
  fail?: Record<string, number>;
  /** Steps (and 'plan') that run until the test releases them or their activity is cancelled. */
  hang?: string[];
  failCompensate?: string[];
  planFails?: number;
}

const scripts = new Map<string, Script>();
const logs = new Map<string, string[]>();
const released = new Set<string>();
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
const taskQueue = `saga-${randomUUID()}`;

const wf = () => Context.current().info.workflowExecution!.workflowId;
const note = (entry: string) => logs.get(wf())!.push(entry);

/** Runs until released, or until the workflow cancels it (delivered with a heartbeat). */
async function hang(key: string): Promise<void> {
  const ctx = Context.current();
  while (!released.has(`${wf()}:${key}`)) {
    ctx.heartbeat();
    await ctx.sleep(50);
  }
}

const activities: SagaProbeActivities = {
  async probePlan() {
    const s = scripts.get(wf())!;
    note('plan');
    if (s.hang?.includes('plan')) await hang('plan');
    if ((s.planFails ?? 0) > 0) {
      s.planFails!--;
      throw ApplicationFailure.nonRetryable('no VNFD');
    }
    return ['A', 'B'];
  },
  async probeRun(step) {
    const s = scripts.get(wf())!;
    note(`run ${step}`);
    if (s.hang?.includes(step)) await hang(step);
    if ((s.fail?.[step] ?? 0) > 0) {
      s.fail![step]--;
      throw ApplicationFailure.nonRetryable(`${step} failed`);
    }
  },
  async probeCompensate(step) {
    note(`compensate ${step}`);
    if (scripts.get(wf())!.failCompensate?.includes(step)) throw ApplicationFailure.nonRetryable(`compensate ${step} failed`);
  },
  async probeAbort(step) { note(`abort ${step}`); },
  // the error is shown where the policy records it (it stays in the status after that)
  async probeEnter(phase, error, rollingBack) { note(`enter ${phase}${rollingBack && phase === 'failed' ? ' (rolling back)' : ''}${error && ['parked', 'failed', 'rollingBack'].includes(phase) ? `: ${error}` : ''}`); },
  async probeStepStarted(step) { note(`step ${step}`); },
  async probeCancelRequested(mode) { note(`cancel ${mode}`); },
};

beforeAll(async () => {
  const cli = findTemporalCli();
  if (!cli) throw new Error('the Temporal CLI is not installed (npm run setup installs it under .tools/temporal)');
  env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'existing-path', path: cli }, ui: false } });
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: require.resolve('../workflows/saga-probe'), activities });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  for (const id of logs.keys()) for (const k of ['A', 'B', 'plan']) released.add(`${id}:${k}`);
  worker?.shutdown();
  await running;
  await env?.teardown();
});

async function start(input: Partial<SagaProbeInput>, script: Script = {}): Promise<{ id: string; handle: WorkflowHandle; log: string[] }> {
  const id = `saga-${randomUUID()}`;
  scripts.set(id, script);
  logs.set(id, []);
  const handle = await env.client.workflow.start('sagaProbe', { taskQueue, workflowId: id, args: [{ onFailure: 'park', steps: ['A', 'B', 'C'], ...input }] });
  return { id, handle, log: logs.get(id)! };
}

async function until(log: string[], entry: string | RegExp, times = 1): Promise<void> {
  const deadline = Date.now() + 20_000;
  const has = () => log.filter((e) => (typeof entry === 'string' ? e === entry : entry.test(e))).length >= times;
  while (!has()) {
    if (Date.now() > deadline) throw new Error(`"${String(entry)}" never came; the log: ${JSON.stringify(log)}`);
    await sleep(20);
  }
}

const refusedAs = (type: string, message?: RegExp) => ({ cause: expect.objectContaining({ type, ...(message ? { message: expect.stringMatching(message) } : {}) }) });
const result = (h: WorkflowHandle) => h.result() as Promise<SagaStatus>;

describe('park (the ETSI policy: FAILED_TEMP)', () => {
  test('a failed step parks the saga; retry runs again from that step, not the ones before it', async () => {
    const { handle, log } = await start({}, { fail: { B: 1 } });
    await until(log, /^enter parked/);
    expect(await handle.query(stateQuery)).toEqual({ state: 'parked', step: 'B' });
    await handle.executeUpdate(retryUpdate);
    // the update answered once the state it leads to was recorded (the steps may have gone on since)
    expect(log.filter((e) => e === 'enter running')).toHaveLength(2);
    expect((await result(handle)).phase).toBe('completed');
    expect(log).toEqual([
      'enter running', 'step A', 'run A', 'step B', 'run B', 'enter parked: Step "B" failed: B failed',
      'enter running', 'step B', 'run B', 'step C', 'run C', 'enter completed',
    ]);
  });

  test('rollback compensates every started step in reverse, the failed one first', async () => {
    const { handle, log } = await start({}, { fail: { B: Infinity } });
    await until(log, /^enter parked/);
    await handle.executeUpdate(rollbackUpdate);
    const end = await result(handle);
    expect(end).toMatchObject({ phase: 'rolledBack', rollingBack: true, error: { detail: 'Step "B" failed: B failed' } });
    expect(log.slice(log.findIndex((e) => e.startsWith('enter rollingBack')))).toEqual(['enter rollingBack: Step "B" failed: B failed', 'step rollback: B', 'compensate B', 'step rollback: A', 'compensate A', 'enter rolledBack']);
    expect(log).not.toContain('run C');
  });

  test('fail ends it failed, undoing nothing', async () => {
    const { handle, log } = await start({}, { fail: { B: Infinity } });
    await until(log, /^enter parked/);
    await handle.executeUpdate(failUpdate);
    expect(await result(handle)).toMatchObject({ phase: 'failed', error: { detail: 'Step "B" failed: B failed' } });
    expect(log.filter((e) => e.startsWith('compensate'))).toEqual([]);
  });

  test('an irreversible step that started refuses rollback (422); retry and fail are still open', async () => {
    const { handle, log } = await start({ steps: ['A', 'B'], irreversible: ['A'] }, { fail: { B: 2 } });
    await until(log, /^enter parked/);
    await expect(handle.executeUpdate(rollbackUpdate)).rejects.toMatchObject(refusedAs(UNPROCESSABLE, /step "A" has started and cannot be undone/));
    await handle.executeUpdate(retryUpdate);
    await until(log, /^enter parked/, 2);
    await handle.executeUpdate(failUpdate);
    expect((await result(handle)).phase).toBe('failed');
    expect(log.filter((e) => e === 'run B')).toHaveLength(2);
  });

  test('decisions need a parked saga (409)', async () => {
    const { id, handle, log } = await start({ steps: ['A'] }, { hang: ['A'] });
    await until(log, 'run A');
    for (const update of [retryUpdate, rollbackUpdate, failUpdate]) {
      await expect(handle.executeUpdate(update)).rejects.toMatchObject(refusedAs(CONFLICT, /needs parked; the operation is running/));
    }
    released.add(`${id}:A`);
    expect((await result(handle)).phase).toBe('completed');
  });
});

describe('rollback and fail (the Magnum policies)', () => {
  test('rollback: a failure rolls the started steps back at once and keeps the first error', async () => {
    const { handle, log } = await start({ onFailure: 'rollback' }, { fail: { B: Infinity } });
    expect(await result(handle)).toMatchObject({ phase: 'rolledBack', rollingBack: true, error: { detail: 'Step "B" failed: B failed' } });
    expect(log.slice(log.indexOf('enter rollingBack: Step "B" failed: B failed'))).toEqual([
      'enter rollingBack: Step "B" failed: B failed', 'step rollback: B', 'compensate B', 'step rollback: A', 'compensate A', 'enter rolledBack',
    ]);
  });

  test('rollback: a compensation that fails ends the saga failed, shown as a failed rollback', async () => {
    const { handle } = await start({ onFailure: 'rollback' }, { fail: { B: Infinity }, failCompensate: ['A'] });
    expect(await result(handle)).toMatchObject({ phase: 'failed', rollingBack: true, step: 'rollback: A', error: { detail: 'Step "rollback: A" failed: compensate A failed' } });
  });

  test('fail: a failure ends it at once, undoing nothing and waiting for no one', async () => {
    const { handle, log } = await start({ onFailure: 'fail' }, { fail: { A: 1 } });
    expect(await result(handle)).toMatchObject({ phase: 'failed', step: 'A' });
    expect(log).toEqual(['enter running', 'step A', 'run A', 'enter failed: Step "A" failed: A failed']);
  });
});

describe('cancel', () => {
  test('GRACEFUL finishes the running step and starts no other; the stop counts as a failure (parked)', async () => {
    const { id, handle, log } = await start({ steps: ['A', 'B'] }, { hang: ['A'] });
    await until(log, 'run A');
    await handle.executeUpdate(cancelUpdate, { args: ['GRACEFUL'] });
    expect(log.at(-1)).toBe('cancel GRACEFUL');
    await expect(handle.executeUpdate(cancelUpdate, { args: ['FORCEFUL'] })).rejects.toMatchObject(refusedAs(CONFLICT, /a cancel is already pending/));
    released.add(`${id}:A`);
    await until(log, /^enter parked/);
    expect(log.at(-1)).toBe('enter parked: cancelled (GRACEFUL) before step "B"');
    await expect(handle.executeUpdate(cancelUpdate, { args: ['GRACEFUL'] })).rejects.toMatchObject(refusedAs(CONFLICT, /cancel needs starting, running or rollingBack; the operation is parked/));
    await handle.executeUpdate(failUpdate);
    expect((await result(handle)).phase).toBe('failed');
    expect(log).not.toContain('run B');
    expect(log).not.toContain('abort A');
  });

  test('FORCEFUL stops the running step at once and aborts what it waits on', async () => {
    const { handle, log } = await start({ steps: ['A', 'B'] }, { hang: ['A'] });
    await until(log, 'run A');
    await handle.executeUpdate(cancelUpdate, { args: ['FORCEFUL'] });
    await until(log, /^enter parked/);
    expect(log.slice(-2)).toEqual(['abort A', 'enter parked: cancelled (FORCEFUL) during step "A"']);
    await handle.executeUpdate(failUpdate);
    expect((await result(handle)).phase).toBe('failed');
  });

  test('GRACEFUL interrupts a step that says any cancel may (a long external wait)', async () => {
    const { handle, log } = await start({ steps: ['A', 'B'], interruptible: ['A'] }, { hang: ['A'] });
    await until(log, 'run A');
    await handle.executeUpdate(cancelUpdate, { args: ['GRACEFUL'] });
    await until(log, /^enter parked/);
    expect(log.at(-1)).toBe('enter parked: cancelled (GRACEFUL) during step "A"');
    await handle.executeUpdate(failUpdate);
    await result(handle);
  });

  test('a cancel mode other than GRACEFUL or FORCEFUL is refused (422)', async () => {
    const { id, handle, log } = await start({ steps: ['A'] }, { hang: ['A'] });
    await until(log, 'run A');
    await expect(handle.executeUpdate(cancelUpdate, { args: ['SOFT' as never] })).rejects.toMatchObject(refusedAs(UNPROCESSABLE, /GRACEFUL or FORCEFUL/));
    released.add(`${id}:A`);
    expect((await result(handle)).phase).toBe('completed');
  });

  test('while planning: the planning stops and the saga ends rolled back, nothing ran', async () => {
    const { handle, log } = await start({ planned: true }, { hang: ['plan'] });
    await until(log, 'plan');
    await handle.executeUpdate(cancelUpdate, { args: ['GRACEFUL'] });
    expect((await result(handle)).phase).toBe('rolledBack');
    expect(log).toEqual(['plan', 'enter rolledBack']);
  });
});

test('a failed planning parks like a step; retry plans again', async () => {
  const { handle, log } = await start({ planned: true }, { planFails: 1 });
  await until(log, /^enter parked/);
  expect(log.at(-1)).toBe('enter parked: Step "plan the operation" failed: no VNFD');
  await handle.executeUpdate(retryUpdate);
  expect((await result(handle)).phase).toBe('completed');
  expect(log.filter((e) => e === 'plan')).toHaveLength(2);
  expect(log.slice(-3)).toEqual(['step B', 'run B', 'enter completed']);
});
