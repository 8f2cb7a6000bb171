/**
 * Requests that used to wedge an instance or pull a package out from under a
 * rolling update (security review H6, M4, minor "lost PATCH updates"):
 *  - a coordinate script the package does not have is refused at the API (422);
 *  - an op that cannot be planned (the script vanished from the package store
 *    between accept and run) ends FAILED_TEMP, then FAILED, and the instance
 *    stays manageable;
 *  - a cancel while the op is STARTING is honoured (ROLLED_BACK);
 *  - the target package of a change is IN_USE from accept until the op ends;
 *  - concurrent package PATCHes keep every key.
 * The worker is stopped while an op is accepted to hold it in STARTING: the op
 * occ and its workflow exist, nothing has run yet.
 */
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { sampleVariant, twoVduVnfV2 } from '../../samples/variant';
import { call, onboard, opIdFrom, temporalClient, waitOpState } from '../support/api';
import { withProductStore } from '../support/product-store';
import { killWorker, restartWorker } from '../support/worker-control';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const V2 = '/vnflcm/v2';
const H = { Version: '2.0.0' };
const SCRIPT = 'Scripts/coord_ok.sh';
const ENDED = ['COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLED_BACK'];

let oldVnfd: string;

/** A v2 package (new image) under a fresh vnfdId, with a coordinate script. */
async function targetPackage(): Promise<{ id: string; vnfdId: string }> {
  const v = sampleVariant(SAMPLE, { editYaml: (_p, t) => twoVduVnfV2(t), extraFiles: { [SCRIPT]: Buffer.from('#!/bin/sh\nexit 0\n') } });
  const p = await onboard(v.zip);
  expect(p.onboardingState).toBe('ONBOARDED');
  return { id: p.id, vnfdId: v.vnfdId };
}

async function instantiated(): Promise<string> {
  const id = (await call('POST', `${V2}/vnf_instances`, { vnfdId: oldVnfd }, H)).body.id;
  const r = await call('POST', `${V2}/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple', instantiationLevelId: 'instantiation_level_1',
    extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }, H);
  expect((await waitOpState(opIdFrom(r), ENDED, 60_000, 'v2')).operationState).toBe('COMPLETED');
  return id;
}

const changeBody = (vnfdId: string, extra: Record<string, unknown> = {}) => ({
  vnfdId, additionalParams: { upgrade_type: 'RollingUpdate', vdu_params: [{ vdu_id: 'VDU1' }, { vdu_id: 'VDU2' }], ...extra },
});
const change = (id: string, body: unknown) => call('POST', `${V2}/vnf_instances/${id}/change_vnfpkg`, body, H);
const usage = async (pkgId: string) => (await call('GET', `/vnfpkgm/v1/vnf_packages/${pkgId}`)).body.usageState;

async function terminated(id: string): Promise<void> {
  const r = await call('POST', `${V2}/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' }, H);
  expect(r.status).toBe(202);
  const op = await waitOpState(opIdFrom(r), ENDED, 60_000, 'v2');
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
}

/** Runs `fn` with the worker stopped: an op accepted meanwhile stays STARTING. */
async function withWorkerStopped<T>(fn: () => Promise<T>): Promise<T> {
  killWorker();
  try {
    return await fn();
  } finally {
    restartWorker();
  }
}

beforeAll(async () => {
  const v1 = sampleVariant(SAMPLE, {});
  oldVnfd = v1.vnfdId;
  expect((await onboard(v1.zip)).onboardingState).toBe('ONBOARDED');
});

test('a coordinate script the package does not have is refused with 422 naming it; nothing is started', async () => {
  const target = await targetPackage();
  const id = await instantiated();
  for (const [field, script] of [['lcm-operation-coordinate-new-vnf', 'nope.sh'], ['lcm-operation-coordinate-old-vnf', './Scripts/nope.sh']]) {
    const r = await change(id, changeBody(target.vnfdId, { [field]: script }));
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(r.body.status).toBe(422);
    expect(r.body.detail).toContain(field);
    expect(r.body.detail).toContain(script);
  }
  const ops = (await call('GET', `${V2}/vnf_lcm_op_occs?vnfInstanceId=${id}`, undefined, H)).body;
  expect(ops.map((o: any) => o.operation)).toEqual(['INSTANTIATE']);
  expect(await usage(target.id)).toBe('NOT_IN_USE');
  await terminated(id);
});

test('an op that cannot be planned ends FAILED_TEMP with the reason, then FAILED; the instance can be terminated', async () => {
  const target = await targetPackage();
  const id = await instantiated();
  const opId = await withWorkerStopped(async () => {
    const r = await change(id, changeBody(target.vnfdId, { 'lcm-operation-coordinate-new-vnf': SCRIPT }));
    expect(r.status).toBe(202); // the script is there when the request is checked...
    // ...and gone from the package store when the workflow plans the operation
    await withProductStore((store) => store.read(async ({ db, t }) => {
      await db.delete(t.vnfPackageFiles).where(and(eq(t.vnfPackageFiles.packageId, target.id), eq(t.vnfPackageFiles.path, SCRIPT)));
    }));
    return opIdFrom(r);
  });
  const op = await waitOpState(opId, ENDED, 90_000, 'v2');
  expect(op.operationState).toBe('FAILED_TEMP');
  expect(op.error.detail).toContain(`coordinate script ${SCRIPT} is not in package ${target.id}`);
  // while it waits for the operator, the instance is busy (one op at a time) and the target is held
  expect((await call('POST', `${V2}/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' }, H)).status).toBe(409);
  expect(await usage(target.id)).toBe('IN_USE');
  const failed = await call('POST', `${V2}/vnf_lcm_op_occs/${opId}/fail`, undefined, H);
  expect(failed.status).toBe(200);
  expect(failed.body.operationState).toBe('FAILED');
  expect(await usage(target.id)).toBe('NOT_IN_USE');
  expect((await call('GET', `${V2}/vnf_instances/${id}`, undefined, H)).body.vnfdId).toBe(oldVnfd);
  await terminated(id);
});

test('cancel while STARTING is accepted and ends the op ROLLED_BACK; the target is released, the instance manageable', async () => {
  const target = await targetPackage();
  const id = await instantiated();
  killWorker();
  let opId: string;
  let cancel: ReturnType<typeof call>;
  try {
    const r = await change(id, changeBody(target.vnfdId));
    expect(r.status).toBe(202);
    opId = opIdFrom(r);
    expect((await call('GET', `${V2}/vnf_lcm_op_occs/${opId}`, undefined, H)).body.operationState).toBe('STARTING');
    cancel = call('POST', `${V2}/vnf_lcm_op_occs/${opId}/cancel`, { cancelMode: 'GRACEFUL' }, H); // answered once the workflow runs
    await new Promise((res) => setTimeout(res, 500));
  } finally {
    restartWorker();
  }
  const answered = await cancel!;
  expect(answered.text).toBe('');
  expect(answered.status).toBe(202);
  const op = await waitOpState(opId!, ENDED, 60_000, 'v2');
  expect(op.error?.detail ?? op.operationState).toBe('ROLLED_BACK');
  expect(await usage(target.id)).toBe('NOT_IN_USE');
  expect((await call('GET', `${V2}/vnf_instances/${id}`, undefined, H)).body.vnfdId).toBe(oldVnfd);
  await terminated(id);
});

test('the target package is IN_USE from accept to the end of the op: DISABLED is allowed, DELETE is 409', async () => {
  const target = await targetPackage();
  const id = await instantiated();
  const opId = await withWorkerStopped(async () => {
    const r = await change(id, changeBody(target.vnfdId));
    expect(r.status).toBe(202);
    expect(await usage(target.id)).toBe('IN_USE');
    expect((await call('PATCH', `/vnfpkgm/v1/vnf_packages/${target.id}`, { operationalState: 'DISABLED' })).status).toBe(200);
    const del = await call('DELETE', `/vnfpkgm/v1/vnf_packages/${target.id}`);
    expect(del.status).toBe(409);
    expect(del.body.detail).toMatch(/IN_USE/);
    return opIdFrom(r);
  });
  const op = await waitOpState(opId, ENDED, 240_000, 'v2');
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED'); // a DISABLED target still completes the change it was accepted for
  expect((await call('GET', `${V2}/vnf_instances/${id}`, undefined, H)).body.vnfdId).toBe(target.vnfdId);
  expect(await usage(target.id)).toBe('IN_USE'); // now the instance uses it
  expect((await call('DELETE', `/vnfpkgm/v1/vnf_packages/${target.id}`)).status).toBe(409);
  await terminated(id);
  expect((await call('DELETE', `${V2}/vnf_instances/${id}`, undefined, H)).status).toBe(204);
  expect(await usage(target.id)).toBe('NOT_IN_USE');
  expect((await call('DELETE', `/vnfpkgm/v1/vnf_packages/${target.id}`)).status).toBe(204);
}, 360_000);

test('a DISABLED target is refused (409) and not marked IN_USE', async () => {
  const target = await targetPackage();
  const id = await instantiated();
  expect((await call('PATCH', `/vnfpkgm/v1/vnf_packages/${target.id}`, { operationalState: 'DISABLED' })).status).toBe(200);
  expect((await change(id, changeBody(target.vnfdId))).status).toBe(409);
  expect(await usage(target.id)).toBe('NOT_IN_USE');
  await terminated(id);
});

test('an op whose workflow was terminated (e.g. in the Web UI) before it ended: retry 409, fail settles it FAILED with the reason, the instance is manageable', async () => {
  const id = await instantiated();
  const opId = await withWorkerStopped(async () => {
    const r = await call('POST', `${V2}/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' }, H);
    expect(r.status).toBe(202);
    await (await temporalClient()).workflow.getHandle(opIdFrom(r)).terminate('an operator in the Web UI');
    return opIdFrom(r);
  });
  expect((await call('GET', `${V2}/vnf_lcm_op_occs/${opId}`, undefined, H)).body.operationState).toBe('STARTING');
  expect((await call('POST', `${V2}/vnf_instances/${id}/heal`, {}, H)).status).toBe(409); // the op still holds the instance
  expect((await call('POST', `${V2}/vnf_lcm_op_occs/${opId}/retry`, undefined, H)).status).toBe(409);
  const failed = await call('POST', `${V2}/vnf_lcm_op_occs/${opId}/fail`, undefined, H);
  expect(failed.status).toBe(200);
  expect(failed.body).toMatchObject({ operationState: 'FAILED', error: { detail: expect.stringContaining('TERMINATED') } });
  await terminated(id);
});

describe('package userDefinedData PATCHes', () => {
  const created = async () => (await call('POST', '/vnfpkgm/v1/vnf_packages', { userDefinedData: { first: '1' } })).body.id as string;
  const data = async (pkgId: string) => (await call('GET', `/vnfpkgm/v1/vnf_packages/${pkgId}`)).body.userDefinedData;

  test('parallel PATCHes: every key survives', async () => {
    const pkgId = await created();
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    const answers = await Promise.all(keys.map((k) => call('PATCH', `/vnfpkgm/v1/vnf_packages/${pkgId}`, { userDefinedData: { [k]: k } })));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    expect(await data(pkgId)).toEqual({ first: '1', ...Object.fromEntries(keys.map((k) => [k, k])) });
  });

  test('a PATCH racing another writer (a second API process) does not drop its key', async () => {
    const pkgId = await created();
    // The other writer holds its write (SQLite: the database's write lock; PostgreSQL: the row's) uncommitted while our PATCH arrives.
    let patch: ReturnType<typeof call> | undefined;
    await withProductStore((store) => store.tx(async ({ db, t }) => {
      const [row] = await db.select({ u: t.vnfPackages.userDefinedData }).from(t.vnfPackages).where(eq(t.vnfPackages.id, pkgId)).limit(1);
      await db.update(t.vnfPackages).set({ userDefinedData: { ...(row.u as Record<string, string>), other: 'x' } }).where(eq(t.vnfPackages.id, pkgId));
      patch ??= call('PATCH', `/vnfpkgm/v1/vnf_packages/${pkgId}`, { userDefinedData: { mine: 'y' } });
      await new Promise((res) => setTimeout(res, 700));
    }));
    expect((await patch!).status).toBe(200);
    expect(await data(pkgId)).toEqual({ first: '1', other: 'x', mine: 'y' });
  });
});
