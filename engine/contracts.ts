/**
 * What the API, the workflows and the activities agree on, and nothing
 * else: inputs, op states, the operator's tasks on an operation (Temporal
 * updates, so the API learns at once whether the workflow accepted them),
 * and the failure types the API maps to HTTP statuses. Safe to import from
 * workflow code, the API and activities alike (no I/O, no implementation).
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

export const OP_STATES = ['STARTING', 'PROCESSING', 'COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLING_BACK', 'ROLLED_BACK'] as const;
export type OpState = (typeof OP_STATES)[number];
export const FINAL_STATES: readonly OpState[] = ['COMPLETED', 'FAILED', 'ROLLED_BACK'];
/** States in which a cancel is accepted (SOL003: STARTING, PROCESSING, ROLLING_BACK). */
export const CANCELLABLE_STATES: readonly OpState[] = ['STARTING', 'PROCESSING', 'ROLLING_BACK'];

export const LCM_OPERATIONS = ['INSTANTIATE', 'TERMINATE', 'HEAL', 'SCALE', 'CHANGE_VNFPKG', 'MODIFY_INFO', 'CHANGE_EXT_CONN'] as const;
export type LcmOperation = (typeof LCM_OPERATIONS)[number];
export const CANCEL_MODES = ['GRACEFUL', 'FORCEFUL'] as const;
export type CancelMode = (typeof CANCEL_MODES)[number];

export interface LcmOpInput {
  opOccId: string;
  vnfInstanceId: string;
  operation: LcmOperation;
  /** Interval of the first Heat status poll; later polls back off. */
  heatPollMs: number;
  /** The longest interval between two Heat status polls (HEAT_POLL_MAX_MS); absent in operations started before it was a setting. */
  heatPollMaxMs?: number;
}

/** How a workflow polls Heat: heatPollMs first, x1.5 per poll up to heatPollMaxMs (15 s when not given). */
export type HeatPolling = Pick<LcmOpInput, 'heatPollMs' | 'heatPollMaxMs'>;
export const HEAT_POLL_MAX_MS_DEFAULT = 15_000;

export interface OnboardInput { packageId: string }

/** ApplicationFailure types the API maps to HTTP statuses. */
export const CONFLICT = 'Conflict'; // 409
export const UNPROCESSABLE = 'Unprocessable'; // 422

export const retryUpdate = defineUpdate<void>('retry');
export const rollbackUpdate = defineUpdate<void>('rollback');
export const failUpdate = defineUpdate<void>('fail');
export const cancelUpdate = defineUpdate<void, [CancelMode]>('cancel');
export const stateQuery = defineQuery<{ state: string; step?: string }>('state');
