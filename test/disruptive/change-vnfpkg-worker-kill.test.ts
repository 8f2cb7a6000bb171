/**
 * ChangeCurrentVnfPkg rolling update (seed 004): the worker killed with -9
 * while an update is parked on the EM's 202, and restarted. The rest of the
 * rolling update: test/e2e/change-vnfpkg.test.ts.
 */
import { startEm, Em } from '../../em/server';
import { eventually, temporalClient } from '../support/api';
import { changeRequest, changeVnfpkg, done, instantiated as instantiatedOf, onboardPair } from '../support/change-vnfpkg';
import { killWorker, restartWorker } from '../support/worker-control';

let em: Em;
let oldVnfd: string;
let newVnfd: string;

const vnfcParam = (tag: string, extra: Record<string, unknown> = {}) => ({
  cp_name: 'VDU1_CP1', username: 'ubuntu', password: 'vnfc-secret-pw', endpoint: em.url, timeout: 30, inputParams: { phase: tag }, ...extra,
});
const changeBody = (extra: Record<string, unknown> = {}, param: (tag: string) => unknown = (t) => vnfcParam(t)) => changeRequest(newVnfd, 'RollingUpdate', param, extra);
const instantiated = (level?: string) => instantiatedOf(oldVnfd, level);
const coordsOf = (opId: string) => em.coordinations().filter((c) => c.request.vnfLcmOpOccId === opId);

/** The wait of this workflow has heartbeated the coordination's Location (a retry resumes it instead of POSTing again). */
async function locationInHeartbeat(workflowId: string): Promise<true | undefined> {
  const client = await temporalClient();
  try {
    const pending = (await client.workflow.getHandle(workflowId).describe()).raw.pendingActivities ?? [];
    const wait = pending.find((a) => a.activityType?.name === 'awaitCoordination');
    const details = (wait?.heartbeatDetails?.payloads ?? []).map((p) => JSON.parse(Buffer.from(p.data ?? []).toString()));
    return details.some((d) => typeof d?.location === 'string') ? true : undefined;
  } finally {
    await client.connection.close();
  }
}

beforeAll(async () => {
  em = await startEm({});
  ({ oldVnfd, newVnfd } = await onboardPair());
});
afterAll(() => em.close());
beforeEach(() => em.setBehaviour({ mode: 'sync', result: 'CONTINUE' }));

test('kill -9 of the worker while parked on a 202 wait: it resumes, one coordination on the EM', async () => {
  const id = await instantiated();
  em.setBehaviour({ mode: 'async', result: 'CONTINUE', delayMs: 8000, retryAfter: '2' });
  const opId = await changeVnfpkg(id, changeBody({}, (t) => vnfcParam(t, { timeout: 120 })));
  // parked: the POST's 202 is in the first VNFC's wait heartbeat. (Killed while the EM had the POST but before the
  // heartbeat, the retry would POST again: SOL002 has no idempotency key, see the README.)
  await eventually('first coordination accepted and heartbeated', () => locationInHeartbeat(`${opId}/update-0-1/update-VDU1-0`), 60_000);
  killWorker();
  await new Promise((r) => setTimeout(r, 1000));
  restartWorker();
  const op = await done(opId);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const coords = coordsOf(opId);
  expect(coords).toHaveLength(2);
  expect(coords.every((c) => c.posts === 1)).toBe(true);
});
