/** The states, operation types and cancel modes of a VNF LCM operation occurrence (SOL003), as the API, the store and the workflows name them. */

export const OP_STATES = ['STARTING', 'PROCESSING', 'COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLING_BACK', 'ROLLED_BACK'] as const;
export type OpState = (typeof OP_STATES)[number];
export const FINAL_STATES: readonly OpState[] = ['COMPLETED', 'FAILED', 'ROLLED_BACK'];
/** States in which a cancel is accepted (SOL003: STARTING, PROCESSING, ROLLING_BACK). */
export const CANCELLABLE_STATES: readonly OpState[] = ['STARTING', 'PROCESSING', 'ROLLING_BACK'];

export const LCM_OPERATIONS = ['INSTANTIATE', 'TERMINATE', 'HEAL', 'SCALE', 'CHANGE_VNFPKG', 'MODIFY_INFO', 'CHANGE_EXT_CONN'] as const;
export type LcmOperation = (typeof LCM_OPERATIONS)[number];
export const CANCEL_MODES = ['GRACEFUL', 'FORCEFUL'] as const;
export type CancelMode = (typeof CANCEL_MODES)[number];
