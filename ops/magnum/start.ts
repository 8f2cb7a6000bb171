/**
 * How a recorded Magnum operation's workflow is started, by the API (a
 * request) and by the worker (auto-healing) alike: its type, id (the
 * operation id, so a second start finds the first), input and what the Web
 * UI shows of it.
 */
import type { Client, WorkflowStartOptions } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import crypto from 'node:crypto';
import type { Config } from '../../common/config';
import type { MagnumClusterRow } from '../../store/repos/magnum/clusters';
import { SA_CLUSTER_STATUS } from '../../common/search-attributes';
import { traceAttribute } from '../../common/tracing';
import type { MagnumOpInput } from './shared/contracts';
import { magnumOperationModule } from '../registry';

export const newOperationId = (op: string) => `magnum-${op}-${crypto.randomUUID()}`;

export function magnumWorkflowStart(row: MagnumClusterRow, cfg: Config): { workflowType: string; options: WorkflowStartOptions<(i: MagnumOpInput) => Promise<string>> } {
  const op = magnumOperationModule(row.operation);
  const input: MagnumOpInput = { clusterId: row.id, operationId: row.operationId, heatPollMs: cfg.heatPollMs, heatPollMaxMs: cfg.heatPollMaxMs, rollback: row.opParams.rollback === true };
  const summary = op.summary({ clusterId: row.id, clusterName: row.name, params: row.opParams }).replace(/\s+/g, ' ').slice(0, 200);
  return {
    workflowType: op.workflowType,
    options: {
      workflowId: row.operationId, taskQueue: cfg.taskQueue, args: [input], staticSummary: summary,
      staticDetails: [`**Cluster** ${row.name} (${row.id})`, `**Project** ${row.projectId}`, `**Operation** ${row.operation}`, '```json', JSON.stringify(row.opParams, null, 2), '```'].join('\n\n'),
      typedSearchAttributes: [{ key: SA_CLUSTER_STATUS, value: row.status }, ...traceAttribute()],
    },
  };
}

/** Starts the workflow the row names; one started before (a retry) is left running. */
export async function startMagnumOperationWorkflow(temporal: Client, cfg: Config, row: MagnumClusterRow): Promise<void> {
  const { workflowType, options } = magnumWorkflowStart(row, cfg);
  try {
    await temporal.workflow.start(workflowType, options);
  } catch (e) {
    if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
  }
}
