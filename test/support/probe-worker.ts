/** A worker in the test process for a probe workflow (test/workflows) with the test's own activities, on the harness's Temporal. */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { readState } from '../harness/state';

export interface ProbeWorker { client: Client; taskQueue: string; stop(): Promise<void> }

export async function startProbeWorker(name: string, workflowsPath: string, activities: object, options: Pick<WorkerOptions, 'interceptors'> = {}): Promise<ProbeWorker> {
  const { temporalAddress } = readState();
  const taskQueue = `${name}-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address: temporalAddress });
  const worker = await Worker.create({ connection: nativeConnection, taskQueue, workflowsPath, activities, ...options });
  const running = worker.run();
  const client = new Client({ connection: await Connection.connect({ address: temporalAddress }) });
  return {
    client, taskQueue,
    async stop() {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await client.connection.close();
    },
  };
}
