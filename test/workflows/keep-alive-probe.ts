/** One stack status read through the LCM operations' own proxy (workflow-steps/activities.ts acts: its timeouts and retries), for test/e2e/keep-alive. */
import { acts } from '../../workflow-steps/activities';

export async function stackStatusThroughActs(): Promise<string | undefined> {
  return (await acts.stackStatus({ vnfInstanceId: 'probe' }))?.status;
}
