/**
 * Baseline (a): an in-process Worker on its own task queue against the same
 * dev server, running bench/baseline-workflow.ts (bundled once).
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { noop } from './baseline-activities';
import type { baseline, baselineRolling, RollingShape } from './baseline-workflow';
import type { Operation } from './measure';

export const BASELINE_TASK_QUEUE = 'bench-baseline';

/** Runs fn while a baseline worker polls; the worker shuts down when fn settles. */
export async function withBaselineWorker<T>(address: string, fn: () => Promise<T>): Promise<T> {
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('./baseline-workflow'), logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address });
  try {
    const worker = await Worker.create({ connection, taskQueue: BASELINE_TASK_QUEUE, workflowBundle, activities: { noop } });
    return await worker.runUntil(fn);
  } finally {
    await connection.close();
  }
}

/** One baseline workflow of n no-op activities, started and awaited. */
export function baselineOperation(client: Client, n: number): Operation<void> {
  return {
    prepare: async () => undefined,
    run: async () => {
      const workflowId = `baseline-${crypto.randomUUID()}`;
      const state = await client.workflow.execute<typeof baseline>('baseline', { taskQueue: BASELINE_TASK_QUEUE, workflowId, args: [n] });
      if (state !== 'COMPLETED') throw new Error(`baseline ${workflowId} ended ${state}`);
      return workflowId;
    },
  };
}

/** One rolling baseline (parent [+ chunks] + one child per VNFC), started and awaited; resolves with its workflow id. */
export async function runBaselineRolling(client: Client, shape: RollingShape): Promise<string> {
  const workflowId = `baseline-rolling-${crypto.randomUUID()}`;
  const state = await client.workflow.execute<typeof baselineRolling>('baselineRolling', { taskQueue: BASELINE_TASK_QUEUE, workflowId, args: [shape] });
  if (state !== 'COMPLETED') throw new Error(`baseline ${workflowId} ended ${state}`);
  return workflowId;
}
