/**
 * An operator decision (fail, retry) answers only after the state it leads to is recorded,
 * even when it arrives while the FAILED_TEMP write itself is still in flight. The engine runs
 * on a real Temporal server with a slow recordOpState activity that also holds back the
 * completion of the FAILED_TEMP write: the window in which CI once saw `fail` answer FAILED_TEMP.
 */
import { randomUUID } from 'node:crypto';
import type { RecordOpStateArgs } from '../../lcm-activities/op-state';
import { startProbeWorker, type ProbeWorker } from '../support/probe-worker';

const WRITE_MS = 300;
const HOLD_MS = 1500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const recorded: Record<string, string[]> = {};
let probe: ProbeWorker;

beforeAll(async () => {
  probe = await startProbeWorker('engine-probe', require.resolve('../workflows/engine-probe'), {
    // Every write takes WRITE_MS; the FAILED_TEMP one then holds its completion back for HOLD_MS.
    async recordOpState(a: RecordOpStateArgs) {
      await sleep(WRITE_MS);
      (recorded[a.opOccId] ??= []).push(a.state);
      if (a.state === 'FAILED_TEMP') await sleep(HOLD_MS);
    },
  });
});

afterAll(() => probe.stop());

async function untilWritten(id: string, state: string, times = 1): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((recorded[id] ?? []).filter((s) => s === state).length < times) {
    if (Date.now() > deadline) throw new Error(`${state} never written for ${id}: ${recorded[id]}`);
    await sleep(10);
  }
}

async function startProbe() {
  const id = randomUUID();
  const handle = await probe.client.workflow.start('engineProbe', {
    taskQueue: probe.taskQueue, workflowId: id,
    args: [{ opOccId: id, vnfInstanceId: randomUUID(), operation: 'INSTANTIATE', heatPollMs: 100 }],
  });
  await untilWritten(id, 'FAILED_TEMP'); // written; the activity is still holding its completion
  return { id, handle };
}

test('fail sent while FAILED_TEMP is being recorded answers after FAILED is recorded', async () => {
  const { id, handle } = await startProbe();
  await handle.executeUpdate('fail');
  expect(recorded[id]).toEqual(['PROCESSING', 'PROCESSING', 'FAILED_TEMP', 'FAILED']);
  expect(await handle.result()).toBe('FAILED');
});

test('retry sent while FAILED_TEMP is being recorded answers after PROCESSING is recorded', async () => {
  const { id, handle } = await startProbe();
  await handle.executeUpdate('retry');
  expect(recorded[id].slice(0, 4)).toEqual(['PROCESSING', 'PROCESSING', 'FAILED_TEMP', 'PROCESSING']);
  await untilWritten(id, 'FAILED_TEMP', 2); // the retried step failed again: end it
  await handle.executeUpdate('fail');
  expect(await handle.result()).toBe('FAILED');
  expect(recorded[id].slice(4)).toEqual(['PROCESSING', 'FAILED_TEMP', 'FAILED']);
});
