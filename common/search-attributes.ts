/** Typed search attributes the operations carry, for filters in the Web UI (safe to import from workflow code). */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const SA_VNF_INSTANCE_ID = defineSearchAttributeKey('VnfInstanceId', SearchAttributeType.KEYWORD);
export const SA_LCM_OPERATION = defineSearchAttributeKey('LcmOperation', SearchAttributeType.KEYWORD);
export const SA_LCM_OPERATION_STATE = defineSearchAttributeKey('LcmOperationState', SearchAttributeType.KEYWORD);
/** A cluster operation's Magnum status (CREATE_IN_PROGRESS, ...: engine/magnum-status.ts). */
export const SA_CLUSTER_STATUS = defineSearchAttributeKey('ClusterStatus', SearchAttributeType.KEYWORD);
/** The OpenTelemetry trace of the API request that started the operation (README "Traces"), when tracing is on. */
export const SA_TRACE_ID = defineSearchAttributeKey('TraceId', SearchAttributeType.KEYWORD);
export const SEARCH_ATTRIBUTES = [SA_VNF_INSTANCE_ID, SA_LCM_OPERATION, SA_LCM_OPERATION_STATE, SA_CLUSTER_STATUS, SA_TRACE_ID];
