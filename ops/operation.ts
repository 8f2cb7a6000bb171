/** What an operation module declares (ops/registry.ts lists them). */
import type { z } from 'zod';

/** What a summary may say: the instance and the request as recorded (secrets already masked). */
export interface SummaryInput {
  vnfInstanceId: string;
  vnfInstanceName?: string | null;
  vimId?: string | null;
  params: Record<string, unknown>;
}

export interface OperationModule {
  /** The Temporal workflow type: one per operation, so the Web UI lists and filters by it. */
  workflowType: string;
  /** The request body: validated by the API, masks the op occ's secrets, documented in OpenAPI under requestName. */
  request: z.ZodType;
  requestName: string;
  /** The SOL003 task: POST /vnflcm/<version>/vnf_instances/{id}/<path>, on these API versions. */
  task: { path: string; versions: readonly ('v1' | 'v2')[] };
  /** One line for the Web UI, e.g. "Instantiate vnf-… flavour simple, level 2 on VIM …". */
  summary(s: SummaryInput): string;
}

/** How a summary names the instance: its name when it has one, with its id. */
export function vnfName(s: SummaryInput): string {
  return s.vnfInstanceName ? `${s.vnfInstanceName} (${s.vnfInstanceId})` : `VNF ${s.vnfInstanceId}`;
}
