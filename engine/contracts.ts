/**
 * What the API, the workflows and the activities agree on, and nothing
 * else: inputs (the op states themselves are in model/lcm-operation.ts),
 * the operator's tasks on an operation (Temporal updates, so the API learns
 * at once whether the workflow accepted them), and the failure types the
 * API maps to HTTP statuses. Safe to import from
 * workflow code, the API and activities alike (no I/O, no implementation).
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { CancelMode, LcmOperation } from '../model/lcm-operation';
import type { HeatPolling } from '../workflow-steps/stack';

export interface LcmOpInput extends HeatPolling {
  opOccId: string;
  vnfInstanceId: string;
  operation: LcmOperation;
}

export interface OnboardInput { packageId: string }

/** ApplicationFailure types the API maps to HTTP statuses. */
export const CONFLICT = 'Conflict'; // 409
export const UNPROCESSABLE = 'Unprocessable'; // 422

export const retryUpdate = defineUpdate<void>('retry');
export const rollbackUpdate = defineUpdate<void>('rollback');
export const failUpdate = defineUpdate<void>('fail');
export const cancelUpdate = defineUpdate<void, [CancelMode]>('cancel');
export const stateQuery = defineQuery<{ state: string; step?: string }>('state');
