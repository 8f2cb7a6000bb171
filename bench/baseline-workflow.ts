/**
 * Baseline (a): a bare workflow running n no-op activities in sequence, with
 * the same activity options as the product's database activities.
 */
import { executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { BaselineActivities } from './baseline-activities';

const { noop } = proxyActivities<BaselineActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '10s' },
});

export async function baseline(n: number): Promise<string> {
  for (let i = 0; i < n; i++) await noop();
  return 'COMPLETED';
}

/** Rolling baseline: how the product's rolling update is shaped, with no-ops for its activities. */
export interface RollingShape {
  vnfcs: number;
  /** No-ops in the parent, in each chunk workflow, in each per-VNFC workflow. */
  parentActs: number;
  chunkActs: number;
  leafActs: number;
  /** VNFCs per chunk workflow; 0: the parent starts the per-VNFC workflows itself. */
  chunk: number;
}

/** Per-VNFC children, in sequence, after the parent's (or chunk's) own no-ops. */
async function leaves(from: number, to: number, ownActs: number, leafActs: number): Promise<void> {
  const { workflowId } = workflowInfo();
  for (let i = 0; i < ownActs; i++) await noop();
  for (let i = from; i < to; i++) await executeChild(baseline, { args: [leafActs], workflowId: `${workflowId}/vnfc-${i}` });
}

export async function baselineChunk(from: number, to: number, s: RollingShape): Promise<string> {
  await leaves(from, to, s.chunkActs, s.leafActs);
  return 'COMPLETED';
}

export async function baselineRolling(s: RollingShape): Promise<string> {
  if (!s.chunk) {
    await leaves(0, s.vnfcs, s.parentActs, s.leafActs);
    return 'COMPLETED';
  }
  for (let i = 0; i < s.parentActs; i++) await noop();
  for (let from = 0; from < s.vnfcs; from += s.chunk) {
    await executeChild(baselineChunk, { args: [from, Math.min(from + s.chunk, s.vnfcs), s], workflowId: `${workflowInfo().workflowId}/chunk-${from}` });
  }
  return 'COMPLETED';
}
