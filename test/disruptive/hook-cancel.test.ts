/**
 * A FORCEFUL cancel stops a running hook before the operation moves on: the
 * built-in driver's SSH sessions are closed (its remote command ends) and
 * the workflow waits until the hook activity has confirmed its cancellation,
 * so a retry can never run the same hook twice at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sampleVariant } from '../../samples/variant';
import { addSshFault, call, clearFaults, eventually, onboard, opIdFrom, sim, temporalClient, waitOpState } from '../support/api';

const ROOT = path.resolve(__dirname, '../..');
const PARAMS = JSON.parse(fs.readFileSync(path.join(ROOT, 'samples/private_registry_param_file.json'), 'utf8'));

afterAll(async () => { await clearFaults(); });

test('FORCEFUL cancel of a hook hung in an SSH command: the hook is cancelled before FAILED_TEMP, rollback leaves nothing', async () => {
  const pkg = sampleVariant(path.join(ROOT, 'samples/private_registry_vnf'));
  expect((await onboard(pkg.zip)).onboardingState).toBe('ONBOARDED');
  const fault = await addSshFault({ match: 'docker pull', hang: true, times: 1 });
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: pkg.vnfdId })).body.id;
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, PARAMS);
  expect(r.status).toBe(202);
  const opId = opIdFrom(r);
  await eventually('the hook hangs in docker pull', async () => {
    const { faults } = await sim<{ faults: any[] }>('GET', '/sim/ssh/faults');
    return faults.find((f) => f.id === fault.id)?.used >= 1 ? true : undefined;
  }, 120_000, 500);

  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/cancel`, { cancelMode: 'FORCEFUL' })).status).toBe(202);
  const op = await waitOpState(opId, ['FAILED_TEMP'], 90_000);
  expect(op.error.detail).toMatch(/cancelled \(FORCEFUL\) during step "instantiate_end hook"/);

  // In the history: the hook activity confirmed its cancellation before FAILED_TEMP was recorded.
  const client = await temporalClient();
  const events = (await client.workflow.getHandle(opId).fetchHistory()).events ?? [];
  await client.connection.close();
  const hookScheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runLcmHook');
  expect(hookScheduled).toBeDefined();
  const cancelled = events.findIndex((e) => String(e.activityTaskCanceledEventAttributes?.scheduledEventId) === String(hookScheduled!.eventId));
  // entering FAILED_TEMP sets the LcmOperationState search attribute, then records the state
  const failedTempWrite = events.findIndex((e) => {
    const v = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.LcmOperationState?.data;
    return !!v && Buffer.from(v).toString().includes('FAILED_TEMP');
  });
  expect(cancelled).toBeGreaterThan(0);
  expect(failedTempWrite).toBeGreaterThan(cancelled);

  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/rollback`)).status).toBe(202);
  expect((await waitOpState(opId, ['ROLLED_BACK', 'FAILED_TEMP'], 90_000)).operationState).toBe('ROLLED_BACK');
}, 300_000);
