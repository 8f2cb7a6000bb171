/**
 * What the API and the workflows agree on: inputs, op states and the
 * operator's tasks on an op occ (Temporal updates, so the API learns at once
 * whether the workflow accepted them).
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

export const OP_STATES = ['STARTING', 'PROCESSING', 'COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLING_BACK', 'ROLLED_BACK'] as const;
export type OpState = (typeof OP_STATES)[number];
export const FINAL_STATES: readonly OpState[] = ['COMPLETED', 'FAILED', 'ROLLED_BACK'];

export type LcmOperation = 'INSTANTIATE' | 'TERMINATE' | 'HEAL' | 'SCALE' | 'CHANGE_VNFPKG';
export type CancelMode = 'GRACEFUL' | 'FORCEFUL';

export interface LcmOpInput {
  opOccId: string;
  vnfInstanceId: string;
  operation: LcmOperation;
  /** Interval of the first Heat status poll; later polls back off. */
  heatPollMs: number;
}

/** ApplicationFailure types the API maps to HTTP statuses. */
export const CONFLICT = 'Conflict'; // 409
export const UNPROCESSABLE = 'Unprocessable'; // 422

export const retryUpdate = defineUpdate<void>('retry');
export const rollbackUpdate = defineUpdate<void>('rollback');
export const failUpdate = defineUpdate<void>('fail');
export const cancelUpdate = defineUpdate<void, [CancelMode]>('cancel');
export const stateQuery = defineQuery<{ state: OpState; step?: string }>('state');

export interface OnboardInput { packageId: string }
