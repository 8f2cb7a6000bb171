/** What a Magnum operation module declares (ops/registry.ts lists them): its workflow type and its Web UI summary. */
import type { MagnumOperation } from '../../model/magnum/status';

export interface MagnumSummaryInput {
  clusterId: string;
  clusterName: string;
  /** The operation's parameters as recorded (no secrets: counts, names, ids). */
  params: Record<string, unknown>;
}

export interface MagnumOperationModule {
  operation: MagnumOperation;
  /** The Temporal workflow type: one per operation, so the Web UI lists and filters by it. */
  workflowType: string;
  /** One line for the Web UI, e.g. "Resize default-worker of cluster k8s (…) to 3 nodes". */
  summary(s: MagnumSummaryInput): string;
}

export const clusterLabel = (s: MagnumSummaryInput) => `cluster ${s.clusterName} (${s.clusterId})`;
