/**
 * Baseline (a): a bare workflow running n no-op activities in sequence, with
 * the same activity options as the product's database activities.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { BaselineActivities } from './baseline-activities';

const { noop } = proxyActivities<BaselineActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '10s' },
});

export async function baseline(n: number): Promise<string> {
  for (let i = 0; i < n; i++) await noop();
  return 'COMPLETED';
}
