/**
 * Package onboarding (SOL005): read the uploaded zip, load TOSCA.meta, the
 * entry definitions and their imports, build the VNFD model, store files.
 * A broken package goes back to CREATED with the reason; nothing half-written.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { PackageActivities } from './activities';
import type { OnboardInput } from '../../../engine/contracts';

const { onboardPackage, failOnboarding } = proxyActivities<PackageActivities>({
  startToCloseTimeout: '5m',
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 5, nonRetryableErrorTypes: ['PackageError'] },
});

export async function onboard(input: OnboardInput): Promise<'ONBOARDED' | 'CREATED'> {
  try {
    await onboardPackage(input);
    return 'ONBOARDED';
  } catch (err) {
    let cause: unknown = err;
    while (cause instanceof Error && cause.cause) cause = cause.cause;
    const reason = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
    await failOnboarding({ packageId: input.packageId, reason });
    return 'CREATED';
  }
}
