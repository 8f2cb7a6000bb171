/**
 * ChangeCurrentVnfPkg rolling update (seed 004): the worker killed with -9
 * while an update is parked on the EM's 202, and restarted. The rest of the
 * rolling update: test/e2e/change-vnfpkg.test.ts.
 */
import { startEm, Em } from '../../em/server';
import { eq } from 'drizzle-orm';
import { eventually } from '../support/api';
import { withProductStore } from '../support/product-store';
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

/** The op's first wait is parked in the store with the coordination's Location (a retry or another worker's poller resumes it instead of POSTing again). */
async function parkedWithLocation(opId: string): Promise<true | undefined> {
  return withProductStore(async (store) => {
    const rows = await store.read(({ db, t }) => db.select().from(t.coordinationWaits).where(eq(t.coordinationWaits.opOccId, opId)));
    return rows.some((w) => typeof w.location === 'string') ? true : undefined;
  });
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
  // parked: the POST's 202 is in the store. (Killed while the EM had the POST but before the store had it, the
  // retry would POST again: SOL002 has no idempotency key, see the README.)
  await eventually('first coordination accepted and parked', () => parkedWithLocation(opId), 60_000);
  killWorker();
  await new Promise((r) => setTimeout(r, 1000));
  restartWorker();
  const op = await done(opId);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const coords = coordsOf(opId);
  expect(coords).toHaveLength(2);
  expect(coords.every((c) => c.posts === 1)).toBe(true);
});
