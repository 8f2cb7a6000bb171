/**
 * The repositories (store/repos) against both stores: SQLite in a
 * temporary directory and a real PostgreSQL (test/support/postgres.ts), each
 * with the product's migrations. Same tests, same expectations.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { openStore, type Q, type Store } from '../../store';
import { isUniqueViolation, StoreBusy } from '../../store/sql-store';
import { MAGNUM_IN_PROGRESS, readStoreGauges } from '../../store/repos/gauges';
import { openPgStore } from '../../store/store-pg';
import { holdChangeTarget, releaseChangeTarget } from '../../store/package-usage';
import { forgetHostKeys, pinHostKey, pinnedHostKey } from '../../store/repos/host-keys';
import { claimDueWaits, parkWait, rearmWait, removeWait, rescheduleWait, waitById, type CoordinationWait } from '../../store/repos/coordination-waits';
import { createInstance, deleteIdleInstance, findInstance, instanceById, pageOfInstances } from '../../store/repos/instances';
import {
  createOpOcc, failOpOccIfIn, findOpOcc, NoInstance, OpenOperation, openStartedOpOccIds, opOccById, recordStep, unstartedOpOccs, updateOpOcc, upsertCoordination,
} from '../../store/repos/op-occs';
import { baseHotFiles, FileTooLarge, hasPackageFile, packageFile, packageFileIndex, packageFiles, packageFileStream } from '../../store/repos/package-files';
import { packageKeys } from '../../store/content';
import {
  claimUpload, createPackage, deletePackage, findPackage, modifyPackage, pageOfPackages, packageById, packageForVnfd, recordOnboarded, recordOnboardingFailed,
} from '../../store/repos/packages';
import type { InstanceRow } from '../../store/repos/rows';
import type { Scope } from '../../store/repos/scope';
import type { LcmOperation } from '../../model/lcm-operation';
import { defaultVimFor, deleteVim, findOwnedVim, findUsableVim, listVims, projectAccessTo, registerVim, saveConfiguredDefaultVim, saveProjectAccess, upsertInlineVim, vimById, vimIdTaken, vimInUse } from '../../store/repos/vims';
import { createCluster, deleteCluster } from '../../store/repos/clusters';
import { createSubscription, findSubscription, pageOfSubscriptions } from '../../store/repos/subscriptions';
import { QuotaExceeded } from '../../store/quota';
import { startPostgres, type TestPostgres } from '../support/postgres';

const A: Scope = { projectId: 'project-a', all: false };
const B: Scope = { projectId: 'project-b', all: false };
const ADMIN: Scope = { projectId: 'admin', all: true };
/** A page that holds a whole list of these tests. */
const EVERY = { terms: [], limit: 1000 };
const uuid = () => crypto.randomUUID();
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const now = () => new Date().toISOString();

let pg: TestPostgres;
beforeAll(async () => { pg = await startPostgres(); });
afterAll(() => pg?.stop());

describe.each(['sqlite', 'postgres'] as const)('repositories on %s', (dialect) => {
  let dir: string;
  let db: Store;
  let databaseUrl: string | undefined;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-repos-'));
    databaseUrl = dialect === 'postgres' ? pg.newDatabase() : undefined;
    db = await openStore({ dataDir: dir, databaseUrl });
    expect(db.dialect).toBe(dialect);
  });
  afterEach(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** An onboarded, ENABLED package of `scope`'s project with a VNFD id and some files (in the store's content store, as onboarding leaves them). */
  async function onboarded(scope: Scope, vnfdId: string, files: Record<string, Buffer> = {}): Promise<string> {
    const id = uuid();
    await createPackage(db, { id, projectId: scope.projectId, userDefinedData: {} });
    expect(await claimUpload(db, id)).toBe(true);
    const index = [];
    for (const [path, bytes] of Object.entries(files)) index.push({ path, ...await db.content.put(packageKeys.file(id, path), Readable.from([bytes]), { maxBytes: bytes.length }) });
    const result = await recordOnboarded(db, id, {
      vnfdId,
      fields: {
        vnfProvider: 'acme', vnfProductName: 'fw', vnfSoftwareVersion: '1.0', vnfdVersion: '1.0', checksum: { algorithm: 'SHA-256', hash: 'ab' },
        vnfd: { vnfdId, provider: 'acme', productName: 'fw', softwareVersion: '1.0', vnfdVersion: '1.0', flavours: {} }, vnfdFiles: ['Definitions/vnfd.yaml'], softwareImages: [], additionalArtifacts: [],
      },
      files: index,
    });
    expect(result).toEqual({});
    return id;
  }

  async function instanceOf(scope: Scope, pkgId: string, state: InstanceRow['instantiationState'] = 'INSTANTIATED'): Promise<string> {
    const id = uuid();
    await createInstance(db, {
      id, projectId: scope.projectId, vnfdId: 'd', vnfPkgId: pkgId, vnfProvider: 'acme', vnfProductName: 'fw', vnfSoftwareVersion: '1.0', vnfdVersion: '1.0',
      instantiationState: state, vimConnectionInfo: [{ id: 'vci', vimId: 'v' }], metadata: { nested: { list: [1, 'two', null] } }, createdAt: now(),
    });
    return id;
  }

  const newOp = (scope: Scope, instanceId: string, operation: LcmOperation = 'HEAL', params: Record<string, unknown> = {}) => createOpOcc(db, {
    scope, instanceId,
    row: { id: uuid(), operation, operationState: 'STARTING', stateEnteredTime: now(), startTime: now(), operationParams: params, operationParamsSealed: 'sealed' },
    withInstance: async () => undefined,
  });

  describe('packages', () => {
    it('are seen by their project and admins only, and keep typed JSON columns', async () => {
      const id = uuid();
      await createPackage(db, { id, projectId: A.projectId, userDefinedData: { k: 'v', deep: { n: 1, flag: true, list: ['x'] } } });
      const p = await findPackage(db, A, id);
      expect(p).toMatchObject({ onboardingState: 'CREATED', operationalState: 'DISABLED', usageState: 'NOT_IN_USE', userDefinedData: { k: 'v', deep: { n: 1, flag: true, list: ['x'] } } });
      expect(await findPackage(db, B, id)).toBeUndefined();
      expect((await findPackage(db, ADMIN, id))?.id).toBe(id);
      expect(((await pageOfPackages(db, A, EVERY)).rows).map((r) => r.id)).toEqual([id]);
      expect((await pageOfPackages(db, B, EVERY)).rows).toEqual([]);
    });

    it('merge a modification in a transaction; a throwing change writes nothing', async () => {
      const id = uuid();
      await createPackage(db, { id, projectId: A.projectId, userDefinedData: { a: 1 } });
      await modifyPackage(db, A, id, (p) => ({ operationalState: p.operationalState, userDefinedData: { ...p.userDefinedData, b: 2 } }));
      await expect(modifyPackage(db, A, id, () => { throw new Error('refused'); })).rejects.toThrow('refused');
      await expect(modifyPackage(db, B, id, (p) => p)).rejects.toThrow(/not found/);
      expect((await packageById(db, id))?.userDefinedData).toEqual({ a: 1, b: 2 });
    });

    it('are claimed for onboarding once: a second upload loses', async () => {
      const id = uuid();
      await createPackage(db, { id, projectId: A.projectId, userDefinedData: {} });
      const claims = await Promise.all([claimUpload(db, id), claimUpload(db, id)]);
      expect(claims.sort()).toEqual([false, true]);
      expect((await packageById(db, id))?.onboardingState).toBe('PROCESSING');
    });

    it('index their files (bytes in the content store): read one, some, the BaseHOT ones, a range; a failed onboarding removes the index', async () => {
      const binary = crypto.randomBytes(4096);
      const id = await onboarded(A, 'vnfd-files', {
        'BaseHOT/simple/top.yaml': Buffer.from('heat_template_version: 2013-05-23'), 'BaseHOT/simple/nested/VDU1.yaml': Buffer.from('x: 1'),
        'Files/images/image.bin': binary, 'Definitions/vnfd.yaml': Buffer.from('tosca'), 'basehot.txt': Buffer.from('not a template'),
      });
      expect((await packageFile(db, id, 'Files/images/image.bin'))?.equals(binary)).toBe(true);
      expect(await packageFile(db, id, 'missing')).toBeUndefined();
      expect(await hasPackageFile(db, id, 'Definitions/vnfd.yaml')).toBe(true);
      expect(await hasPackageFile(db, id, 'Definitions/other.yaml')).toBe(false);
      expect((await packageFiles(db, id, ['Definitions/vnfd.yaml', 'nope'])).map((f) => f.path)).toEqual(['Definitions/vnfd.yaml']);
      expect(Object.keys(await baseHotFiles(db, id)).sort()).toEqual(['BaseHOT/simple/nested/VDU1.yaml', 'BaseHOT/simple/top.yaml']);
      // the index holds sizes and hashes; a read is capped; the artifact route streams ranges
      expect((await packageFileIndex(db, id)).find((f) => f.path === 'Files/images/image.bin')).toEqual({ path: 'Files/images/image.bin', size: 4096, sha256: sha256(binary) });
      await expect(packageFile(db, id, 'Files/images/image.bin', 4095)).rejects.toBeInstanceOf(FileTooLarge);
      await expect(baseHotFiles(db, id, 10)).rejects.toBeInstanceOf(FileTooLarge);
      const part = (await packageFileStream(db, id, 'Files/images/image.bin', { start: 100, end: 300 }))!;
      const pieces: Buffer[] = [];
      for await (const piece of part.stream) pieces.push(piece);
      expect([part.size, Buffer.concat(pieces).equals(binary.subarray(100, 300))]).toEqual([4096, true]);
      expect(await packageFileStream(db, id, 'missing')).toBeUndefined();
      const p = await packageById(db, id);
      expect(p).toMatchObject({ onboardingState: 'ONBOARDED', operationalState: 'ENABLED', vnfdId: 'vnfd-files', checksum: { algorithm: 'SHA-256', hash: 'ab' }, vnfdFiles: ['Definitions/vnfd.yaml'] });

      await recordOnboardingFailed(db, id, 'bad VNFD');
      expect(await hasPackageFile(db, id, 'Definitions/vnfd.yaml')).toBe(false);
      expect(await packageById(db, id)).toMatchObject({ onboardingState: 'CREATED', operationalState: 'DISABLED', onboardingFailureDetails: { status: 422, detail: 'bad VNFD' } });
    });

    it('hold one vnfdId per project: a twin is refused in its project, allowed in another; nobody picks another project\'s', async () => {
      const first = await onboarded(A, 'vnfd-1', { 'a.txt': Buffer.from('1') });
      const twin = uuid();
      await createPackage(db, { id: twin, projectId: A.projectId, userDefinedData: {} });
      const refused = await recordOnboarded(db, twin, { vnfdId: 'vnfd-1', fields: { vnfProvider: null, vnfProductName: null, vnfSoftwareVersion: null, vnfdVersion: null, checksum: null, vnfd: null, vnfdFiles: null, softwareImages: null, additionalArtifacts: null }, files: [{ path: 'b.txt', size: 1, sha256: sha256(Buffer.from('2')) }] });
      expect(refused).toEqual({ twin: first });
      expect(await hasPackageFile(db, twin, 'b.txt')).toBe(false);
      const other = await onboarded(B, 'vnfd-1');
      expect((await packageForVnfd(db, A, 'vnfd-1'))?.id).toBe(first);
      expect((await packageForVnfd(db, B, 'vnfd-1'))?.id).toBe(other);
      expect(await packageForVnfd(db, B, 'vnfd-unknown')).toBeUndefined();
    });

    it('lose their files with them (foreign key, cascade)', async () => {
      const id = await onboarded(A, 'vnfd-del', { 'x.txt': Buffer.from('x') });
      await deletePackage(db, id);
      expect(await packageById(db, id)).toBeUndefined();
      expect(await hasPackageFile(db, id, 'x.txt')).toBe(false);
    });
  });

  describe('instances and op occs', () => {
    it('an instance makes its package IN_USE, and deleting it releases the package', async () => {
      const pkg = await onboarded(A, 'vnfd-use');
      const inst = await instanceOf(A, pkg, 'NOT_INSTANTIATED');
      expect((await packageById(db, pkg))?.usageState).toBe('IN_USE');
      expect((await findInstance(db, A, inst))?.metadata).toEqual({ nested: { list: [1, 'two', null] } });
      expect(await findInstance(db, B, inst)).toBeUndefined();
      expect(((await pageOfInstances(db, ADMIN, EVERY)).rows).map((i) => i.id)).toEqual([inst]);
      expect(await deleteIdleInstance(db, inst)).toBeUndefined();
      expect(await instanceById(db, inst)).toBeUndefined();
      expect((await packageById(db, pkg))?.usageState).toBe('NOT_IN_USE');
    });

    it('one open operation per instance, also when two requests race', async () => {
      const inst = await instanceOf(A, await onboarded(A, 'vnfd-race'));
      const results = await Promise.allSettled([newOp(A, inst), newOp(A, inst), newOp(A, inst)]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(2);
      for (const l of lost) expect(l.reason).toBeInstanceOf(OpenOperation);
      await expect(newOp(B, inst)).rejects.toBeInstanceOf(NoInstance);
      const op = (won[0] as PromiseFulfilledResult<{ id: string; projectId: string; vnfInstanceId: string }>).value;
      expect(op).toMatchObject({ projectId: A.projectId, vnfInstanceId: inst, workflowStarted: false, isCancelPending: false });
      expect(await deleteIdleInstance(db, inst)).toMatch(/has operation/);

      // the database itself holds it too (partial unique index), whoever writes
      const bypass = await db.read(async ({ db: q, t }) => q.insert(t.vnfLcmOpOccs).values({
        id: uuid(), projectId: A.projectId, vnfInstanceId: inst, operation: 'HEAL', operationState: 'PROCESSING', stateEnteredTime: now(), startTime: now(), operationParams: {}, operationParamsSealed: 's',
      }).then(() => 'written', (e: unknown) => (isUniqueViolation(e) ? 'unique violation' : String(e))));
      expect(bypass).toBe('unique violation');

      await updateOpOcc(db, op.id, { operationState: 'COMPLETED' });
      expect((await newOp(A, inst)).id).not.toBe(op.id);
    });

    it('the database itself refuses states outside their enums and references to rows that do not exist', async () => {
      const pkg = await onboarded(A, 'vnfd-constraints');
      const inst = await instanceOf(A, pkg);
      const op = await newOp(A, inst);
      const outcome = (write: (q: Q) => Promise<unknown>) => db.read(write).then(() => 'written', () => 'refused');
      // the types forbid these values: `as never` writes them anyway, as a bug or another writer might
      expect(await outcome(({ db: q, t }) => q.update(t.vnfInstances).set({ instantiationState: 'HALF' as never }).where(eq(t.vnfInstances.id, inst)))).toBe('refused');
      expect(await outcome(({ db: q, t }) => q.update(t.vnfLcmOpOccs).set({ operationState: 'DONE' as never }).where(eq(t.vnfLcmOpOccs.id, op.id)))).toBe('refused');
      expect(await outcome(({ db: q, t }) => q.update(t.vnfLcmOpOccs).set({ cancelMode: 'SOFT' as never }).where(eq(t.vnfLcmOpOccs.id, op.id)))).toBe('refused');
      expect(await outcome(({ db: q, t }) => q.update(t.vnfPackages).set({ usageState: 'MAYBE' as never }).where(eq(t.vnfPackages.id, pkg)))).toBe('refused');
      expect(await outcome(({ db: q, t }) => q.update(t.vnfInstances).set({ vnfPkgId: uuid() }).where(eq(t.vnfInstances.id, inst)))).toBe('refused');
      expect(await outcome(({ db: q, t }) => q.update(t.vnfInstances).set({ vimId: uuid() }).where(eq(t.vnfInstances.id, inst)))).toBe('refused');
      expect(await outcome(({ db: q, t }) => q.delete(t.vnfPackages).where(eq(t.vnfPackages.id, pkg)))).toBe('refused');
      // positive control: the same kind of write with good values goes through
      expect(await outcome(({ db: q, t }) => q.update(t.vnfLcmOpOccs).set({ operationState: 'FAILED_TEMP', cancelMode: 'GRACEFUL' }).where(eq(t.vnfLcmOpOccs.id, op.id)))).toBe('written');
      expect((await findInstance(db, A, inst))?.instantiationState).toBe('INSTANTIATED');
    });

    it('a refused operation leaves nothing written: no op occ, no instance change', async () => {
      const inst = await instanceOf(A, await onboarded(A, 'vnfd-refuse'));
      const refused = createOpOcc(db, {
        scope: A, instanceId: inst,
        row: { id: uuid(), operation: 'SCALE', operationState: 'STARTING', stateEnteredTime: now(), startTime: now(), operationParams: {}, operationParamsSealed: 's' },
        withInstance: async ({ db: q, t }) => {
          await q.insert(t.sshHostKeys).values({ vnfcId: 'written-in-tx', fingerprint: 'f', learnedAt: now() });
          throw new Error('precondition failed');
        },
      });
      await expect(refused).rejects.toThrow('precondition failed');
      expect(await pinnedHostKey(db, 'written-in-tx')).toBeUndefined();
      expect(await findOpOcc(db, ADMIN, inst)).toBeUndefined();
      expect(await openStartedOpOccIds(db)).toEqual([]);
      const vimX = uuid();
      await registerVim(db, { id: vimX, projectId: A.projectId, name: 'x', authUrl: 'http://127.0.0.1:5000/v3', username: 'u', passwordSealed: 's', project: 'p', createdAt: now() });
      const extra = await createOpOcc(db, {
        scope: A, instanceId: inst,
        row: { id: uuid(), operation: 'SCALE', operationState: 'STARTING', stateEnteredTime: now(), startTime: now(), operationParams: {}, operationParamsSealed: 's' },
        withInstance: async () => ({ vimId: vimX }),
      });
      expect((await instanceById(db, inst))?.vimId).toBe(vimX);
      expect((await unstartedOpOccs(db)).map((o) => o.id)).toEqual([extra.id]);
    });

    it('fail only from the state seen; steps merge rolling counters; coordinations upsert by id, concurrently too', async () => {
      const inst = await instanceOf(A, await onboarded(A, 'vnfd-steps'));
      const op = await newOp(A, inst, 'CHANGE_VNFPKG');
      await updateOpOcc(db, op.id, { operationState: 'PROCESSING', workflowStarted: true });
      expect(await openStartedOpOccIds(db)).toEqual([op.id]);
      expect(await failOpOccIfIn(db, op.id, 'STARTING', { title: 'x' })).toBe(false);

      await recordStep(db, op.id, 'moving VDU1-0', { moved: 1 });
      await recordStep(db, op.id, 'coordinating VDU1-0', { coordinated: 1 });
      await recordStep(db, op.id, 'plain step');
      expect(await opOccById(db, op.id)).toMatchObject({ currentStep: 'plain step', rollingProgress: { moved: 1, coordinated: 1 } });

      await Promise.all(['c1', 'c2', 'c3', 'c4'].map((id) => upsertCoordination(db, op.id, 'lcmCoordinations', { id, coordinationResult: null })));
      await upsertCoordination(db, op.id, 'lcmCoordinations', { id: 'c2', coordinationResult: 'CONTINUE' });
      await upsertCoordination(db, op.id, 'rejectedLcmCoordinations', { delay: 5 });
      const after = await opOccById(db, op.id);
      expect(after?.lcmCoordinations?.map((c) => c.id).sort()).toEqual(['c1', 'c2', 'c3', 'c4']);
      expect(after?.lcmCoordinations?.find((c) => c.id === 'c2')).toEqual({ id: 'c2', coordinationResult: 'CONTINUE' });
      expect(after?.rejectedLcmCoordinations).toEqual([{ delay: 5 }]);

      expect(await failOpOccIfIn(db, op.id, 'PROCESSING', { title: 'ended' })).toBe(true);
      expect(await opOccById(db, op.id)).toMatchObject({ operationState: 'FAILED', error: { title: 'ended' }, isCancelPending: false });
      expect(await openStartedOpOccIds(db)).toEqual([]);
    });

    it('a change_vnfpkg target is held IN_USE while its op runs and released when it ends', async () => {
      const current = await onboarded(A, 'vnfd-old');
      const target = await onboarded(A, 'vnfd-new');
      const inst = await instanceOf(A, current);
      const op = await createOpOcc(db, {
        scope: A, instanceId: inst,
        row: { id: uuid(), operation: 'CHANGE_VNFPKG', operationState: 'STARTING', stateEnteredTime: now(), startTime: now(), operationParams: { vnfdId: 'vnfd-new' }, operationParamsSealed: 's' },
        withInstance: async (q) => { expect(await holdChangeTarget(q, target)).toBeUndefined(); },
      });
      expect((await packageById(db, target))?.usageState).toBe('IN_USE');
      await releaseChangeTarget(db, op.id); // still running: the op keeps it
      expect((await packageById(db, target))?.usageState).toBe('IN_USE');
      await updateOpOcc(db, op.id, { operationState: 'ROLLED_BACK' });
      await releaseChangeTarget(db, op.id);
      expect((await packageById(db, target))?.usageState).toBe('NOT_IN_USE');
      expect((await packageById(db, current))?.usageState).toBe('IN_USE');

      await modifyPackage(db, A, target, (p) => ({ operationalState: 'DISABLED', userDefinedData: p.userDefinedData }));
      await expect(createOpOcc(db, {
        scope: A, instanceId: inst,
        row: { id: uuid(), operation: 'CHANGE_VNFPKG', operationState: 'STARTING', stateEnteredTime: now(), startTime: now(), operationParams: { vnfdId: 'vnfd-new' }, operationParamsSealed: 's' },
        withInstance: async (q) => { const problem = await holdChangeTarget(q, target); if (problem) throw new Error(problem); },
      })).rejects.toThrow(/DISABLED/);
    });
  });

  describe('metrics gauges', () => {
    it('count open operations by state, parked coordinations, the undelivered outbox and its oldest row, clusters by health', async () => {
      const empty = await readStoreGauges(db);
      expect(empty).toEqual({
        etsiByState: { STARTING: 0, PROCESSING: 0, ROLLING_BACK: 0, FAILED_TEMP: 0 },
        magnumInProgress: Object.fromEntries(MAGNUM_IN_PROGRESS.map((s) => [s, 0])),
        failedTempOldest: undefined, parkedOnCoordination: 0, outboxBacklog: 0, outboxOldest: undefined,
        clustersByHealth: { HEALTHY: 0, UNHEALTHY: 0, UNKNOWN: 0 },
      });
      const pkg = await onboarded(A, 'vnfd-g');
      const parkedOp = await newOp(A, await instanceOf(A, pkg));
      await updateOpOcc(db, parkedOp.id, { operationState: 'FAILED_TEMP', stateEnteredTime: '2026-04-01T00:00:00.000Z' });
      await newOp(A, await instanceOf(A, pkg));
      const doneOp = await newOp(A, await instanceOf(A, pkg));
      await updateOpOcc(db, doneOp.id, { operationState: 'COMPLETED' });
      await parkWait(db, { id: 'w1', opOccId: parkedOp.id, args: '{}', taskToken: 't', location: null, deadline: 0, timeoutMs: 1, nextPollAt: 0 });
      const outbox = (id: string, state: 'PENDING' | 'DELIVERED', createdAt: string) => ({
        id, kind: 'etsi-lcm' as const, projectId: A.projectId, sourceId: 's', orderingKey: 'k', seq: Number(id.slice(1)), destination: 'http://x/',
        notificationType: 'VnfLcmOperationOccurrenceNotification', payload: {}, state, createdAt,
      });
      const clusterRow = (id: string, healthStatus: 'HEALTHY' | 'UNHEALTHY' | null) => ({
        id, projectId: A.projectId, kind: 'magnum' as const, name: id, settings: {} as never, secretsSealed: 's', healthStatus, createdAt: now(),
      });
      await db.read(async ({ db: q, t }) => {
        await q.insert(t.notificationOutbox).values([outbox('n1', 'DELIVERED', '2026-01-01T00:00:00.000Z'), outbox('n2', 'PENDING', '2026-02-01T00:00:00.000Z'), outbox('n3', 'PENDING', '2026-03-01T00:00:00.000Z')]);
        await q.insert(t.clusters).values([clusterRow('c1', 'HEALTHY'), clusterRow('c2', 'UNHEALTHY'), clusterRow('c3', 'UNHEALTHY'), clusterRow('c4', null)]);
      });
      expect(await readStoreGauges(db)).toMatchObject({
        etsiByState: { STARTING: 1, PROCESSING: 0, ROLLING_BACK: 0, FAILED_TEMP: 1 },
        failedTempOldest: '2026-04-01T00:00:00.000Z', parkedOnCoordination: 1, outboxBacklog: 2, outboxOldest: '2026-02-01T00:00:00.000Z',
        clustersByHealth: { HEALTHY: 1, UNHEALTHY: 2, UNKNOWN: 1 },
      });
    });
  });

  describe('VIMs', () => {
    const vim = (projectId: string, over: Partial<Parameters<typeof registerVim>[1]> = {}) => ({
      id: uuid(), projectId, name: 'v', authUrl: 'http://127.0.0.1:5000/v3', username: 'u', passwordSealed: 'sealed', project: 'p', createdAt: now(), ...over,
    });

    it('one default per project; the shared default is usable by all, changeable by its owner only', async () => {
      const shared = await saveConfiguredDefaultVim(db, { name: 'default', authUrl: 'http://k/v3', username: 'admin', passwordSealed: 's1', project: 'admin', isDefault: true, shared: true, projectId: 'admin' });
      expect(await saveConfiguredDefaultVim(db, { name: 'default', authUrl: 'http://k/v3', username: 'admin', passwordSealed: 's2', project: 'admin', isDefault: true, shared: true })).toBe(shared);
      expect(await vimById(db, shared)).toMatchObject({ projectId: 'admin', passwordSealed: 's2', shared: true, isDefault: true });

      const a1 = vim(A.projectId, { isDefault: true });
      const a2 = vim(A.projectId, { isDefault: true });
      await registerVim(db, a1);
      await registerVim(db, a2);
      expect((await vimById(db, a1.id))?.isDefault).toBe(false);
      expect((await defaultVimFor(db, A))?.id).toBe(a2.id);
      expect((await defaultVimFor(db, B))?.id).toBe(shared);
      expect((await findUsableVim(db, B, shared))?.id).toBe(shared);
      expect(await findOwnedVim(db, B, shared)).toBeUndefined();
      expect(await findUsableVim(db, B, a1.id)).toBeUndefined();
      expect((await listVims(db, A)).map((v) => v.id).sort()).toEqual([a1.id, a2.id, shared].sort());
      expect(await vimIdTaken(db, a1.id)).toBe(true);
      expect(await vimIdTaken(db, uuid())).toBe(false);
    });

    it('a project\'s own VIM named default is not the deployment\'s default; a VIM that a cluster uses is in use (review 3, Low 5)', async () => {
      const mine = vim(A.projectId, { name: 'default', isDefault: true, passwordSealed: 'members-own' });
      await registerVim(db, mine);
      const shared = await saveConfiguredDefaultVim(db, { name: 'default', authUrl: 'http://k/v3', username: 'admin', passwordSealed: 'cfg', project: 'admin', isDefault: true, shared: true, projectId: 'admin' });
      expect(shared).not.toBe(mine.id);
      expect(await vimById(db, mine.id)).toMatchObject({ projectId: A.projectId, passwordSealed: 'members-own', shared: false });

      const used = vim(A.projectId);
      await registerVim(db, used);
      expect(await vimInUse(db, used.id)).toBeUndefined();
      await createCluster(db, {
        id: uuid(), projectId: A.projectId, kind: 'magnum', name: 'k8s-on-it', vimId: used.id, settings: { kubeVersion: '1.37.2', podCidr: '10.244.0.0/16', serviceCidr: '10.96.0.0/12', registries: [] },
        secretsSealed: 's', createdAt: now(),
      }, { certs: { kubernetesCa: 'c', etcdCa: 'c', frontProxyCa: 'c', admin: 'c', serviceAccountPublicKey: 'c' }, keysSealed: 'k' });
      expect(await vimInUse(db, used.id)).toMatch(/^cluster k8s-on-it \(/);
    });

    it('a project\'s access to the shared VIM: one per project, a new trust kept on the same row, never a VIM of the project; in use through it (issue 22 item 1)', async () => {
      const sharedId = await saveConfiguredDefaultVim(db, { name: 'default', authUrl: 'http://k/v3', username: 'admin', passwordSealed: 'cfg', project: 'admin', isDefault: true, shared: true, projectId: 'admin' });
      const shared = (await vimById(db, sharedId))!;
      const access = await saveProjectAccess(db, shared, A.projectId, 'trust-1');
      expect(await saveProjectAccess(db, shared, A.projectId, 'trust-2')).toBe(access); // renewed in place: A's instances follow
      expect(await vimById(db, access)).toMatchObject({ projectId: A.projectId, accessOf: sharedId, trustId: 'trust-2', passwordSealed: '', shared: false, isDefault: false });
      expect((await projectAccessTo(db, sharedId, A.projectId))?.id).toBe(access);
      expect(await projectAccessTo(db, sharedId, B.projectId)).toBeUndefined();
      expect(await saveProjectAccess(db, shared, B.projectId, 'trust-b')).not.toBe(access);
      // never listed, found, chosen or changed as a VIM of the project
      expect((await listVims(db, A)).map((v) => v.id)).not.toContain(access);
      expect(await findUsableVim(db, A, access)).toBeUndefined();
      expect(await findOwnedVim(db, A, access)).toBeUndefined();
      expect((await defaultVimFor(db, A))?.id).not.toBe(access);
      // the shared VIM is in use while a cluster runs through a project's access; deleting it takes the accesses along
      expect(await vimInUse(db, sharedId)).toBeUndefined();
      const clusterId = uuid();
      await createCluster(db, {
        id: clusterId, projectId: A.projectId, kind: 'magnum', name: 'through-a-trust', vimId: access, settings: { kubeVersion: '1.37.2', podCidr: '10.244.0.0/16', serviceCidr: '10.96.0.0/12', registries: [] },
        secretsSealed: 's', createdAt: now(),
      }, { certs: { kubernetesCa: 'c', etcdCa: 'c', frontProxyCa: 'c', admin: 'c', serviceAccountPublicKey: 'c' }, keysSealed: 'k' });
      expect(await vimInUse(db, sharedId)).toMatch(/^cluster through-a-trust \(/);
      await deleteCluster(db, clusterId);
      await deleteVim(db, sharedId);
      expect(await vimById(db, access)).toBeUndefined();
      expect(await projectAccessTo(db, sharedId, B.projectId)).toBeUndefined();
    });

    it('an inline VIM is created or updated by its project, never taken over by another', async () => {
      const id = uuid();
      const row = { name: 'inline', type: 'openstack', authUrl: 'http://k/v3', username: 'u', passwordSealed: 's', project: 'p', projectDomain: 'Default', userDomain: 'Default', region: 'RegionOne', updatedAt: now() };
      expect(await db.tx((q) => upsertInlineVim(q, A.projectId, id, row))).toBe(true);
      expect(await db.tx((q) => upsertInlineVim(q, A.projectId, id, { ...row, username: 'u2' }))).toBe(true);
      expect(await db.tx((q) => upsertInlineVim(q, B.projectId, id, { ...row, username: 'thief' }))).toBe(false);
      expect(await vimById(db, id)).toMatchObject({ projectId: A.projectId, username: 'u2', shared: false, isDefault: false });
    });
  });

  it('creates return the row they wrote, as a read of it shows it (the API answers with it, reading nothing again)', async () => {
    const P = { projectId: `made-${uuid()}`, all: false };
    const pkg = await createPackage(db, { id: uuid(), projectId: P.projectId, userDefinedData: { k: ['v', 1] } });
    expect(pkg).toEqual(await packageById(db, pkg.id));
    const { instance, also } = await createInstance(db, {
      id: uuid(), projectId: P.projectId, vnfdId: 'd', vnfPkgId: pkg.id, vnfProvider: 'a', vnfProductName: 'p', vnfSoftwareVersion: '1', vnfdVersion: '1',
      instantiationState: 'NOT_INSTANTIATED', vimConnectionInfo: [], metadata: { nested: { list: [1, 'two', null] } }, createdAt: now(),
    }, async (_q, inst) => `queued for ${inst.id}`);
    expect(instance).toEqual(await instanceById(db, instance.id));
    expect(also).toBe(`queued for ${instance.id}`);
    const sub = await createSubscription(db, { id: uuid(), projectId: P.projectId, apiVersion: 'v2', callbackUri: 'http://127.0.0.1:1/n', filter: { operationTypes: ['INSTANTIATE'] }, verbosity: 'SHORT', createdAt: now() });
    expect(sub).toEqual(await findSubscription(db, P, sub.id));
  });

  it('quotas: over the limit is QuotaExceeded and nothing is written; the bytes of uploads add up per project', async () => {
    const Q = { projectId: `quota-${uuid()}`, all: false };
    const pkgs = [uuid(), uuid(), uuid()];
    await createPackage(db, { id: pkgs[0], projectId: Q.projectId, userDefinedData: {} }, 2);
    await createPackage(db, { id: pkgs[1], projectId: Q.projectId, userDefinedData: {} }, 2);
    await expect(createPackage(db, { id: pkgs[2], projectId: Q.projectId, userDefinedData: {} }, 2)).rejects.toThrow(new QuotaExceeded('packages', 2, 2, 1));
    expect(((await pageOfPackages(db, Q, EVERY)).rows).length).toBe(2);
    await createPackage(db, { id: uuid(), projectId: A.projectId, userDefinedData: {} }, 2); // another project's own count

    expect(await claimUpload(db, pkgs[0], { bytes: 600, limit: 1000 })).toBe(true);
    await expect(claimUpload(db, pkgs[1], { bytes: 600, limit: 1000 })).rejects.toThrow(QuotaExceeded);
    expect(await packageById(db, pkgs[1])).toMatchObject({ onboardingState: 'CREATED', contentBytes: null });
    expect(await claimUpload(db, pkgs[1], { bytes: 400, limit: 1000 })).toBe(true);
    expect(await packageById(db, pkgs[1])).toMatchObject({ onboardingState: 'PROCESSING', contentBytes: 400 });

    const inst = { projectId: Q.projectId, vnfdId: 'd', vnfPkgId: pkgs[0], vnfProvider: 'a', vnfProductName: 'p', vnfSoftwareVersion: '1', vnfdVersion: '1', instantiationState: 'NOT_INSTANTIATED' as const, vimConnectionInfo: [], metadata: {}, createdAt: now() };
    await createInstance(db, { id: uuid(), ...inst }, undefined, 1);
    await expect(createInstance(db, { id: uuid(), ...inst }, undefined, 1)).rejects.toThrow(/Quota exceeded: the project holds 1 VNF instances .*QUOTA_INSTANCES/);
    expect(((await pageOfInstances(db, Q, EVERY)).rows).length).toBe(1);

    const sub = { projectId: Q.projectId, apiVersion: 'v1' as const, callbackUri: 'http://127.0.0.1:1/n', createdAt: now() };
    await createSubscription(db, { id: uuid(), ...sub }, 1);
    await expect(createSubscription(db, { id: uuid(), ...sub }, 1)).rejects.toThrow(/QUOTA_SUBSCRIPTIONS/);
    expect(((await pageOfSubscriptions(db, Q, EVERY)).rows).length).toBe(1);
  });

  it('quotas: 100 creates at once in one project and package all land, and a burst at the limit is cut there (the landing of stop 39: the pg tier met a 500 at 10 at once)', async () => {
    const BURST = 100;
    const P: Scope = { projectId: `burst-${uuid()}`, all: false };
    const pkgId = await onboarded(P, `vnfd-${uuid()}`);
    const inst = { projectId: P.projectId, vnfdId: 'd', vnfPkgId: pkgId, vnfProvider: 'a', vnfProductName: 'p', vnfSoftwareVersion: '1', vnfdVersion: '1', instantiationState: 'NOT_INSTANTIATED' as const, vimConnectionInfo: [], metadata: {}, createdAt: now() };
    const results = await Promise.allSettled(Array.from({ length: BURST }, () => createInstance(db, { id: uuid(), ...inst }, undefined, BURST + 10)));
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    expect((await pageOfInstances(db, P, EVERY)).rows).toHaveLength(BURST);
    expect(await packageById(db, pkgId)).toMatchObject({ usageState: 'IN_USE' });

    // at the limit, the burst is cut exactly there
    const over = await Promise.allSettled(Array.from({ length: 20 }, () => createInstance(db, { id: uuid(), ...inst }, undefined, BURST + 10)));
    expect(over.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(over.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason).filter((e) => !(e instanceof QuotaExceeded)).map(String)).toEqual([]);
    expect((await pageOfInstances(db, P, EVERY)).rows).toHaveLength(BURST + 10);
  });

  (dialect === 'postgres' ? it : it.skip)('a transaction that still conflicts at the last run the store allows is StoreBusy (the API answers 503 with Retry-After), and writes nothing', async () => {
    const P: Scope = { projectId: `busy-${uuid()}`, all: false };
    const pkgId = await onboarded(P, `vnfd-${uuid()}`);
    const inst = { projectId: P.projectId, vnfdId: 'd', vnfPkgId: pkgId, vnfProvider: 'a', vnfProductName: 'p', vnfSoftwareVersion: '1', vnfdVersion: '1', instantiationState: 'NOT_INSTANTIATED' as const, vimConnectionInfo: [], metadata: {}, createdAt: now() };
    const oneRun = await openPgStore(databaseUrl!, { maxAttempts: 1 });
    try {
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => createInstance({ ...oneRun, content: db.content }, { id: uuid(), ...inst }, undefined, 1000)));
      const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.filter((e) => !(e instanceof StoreBusy)).map(String)).toEqual([]);
      expect((await pageOfInstances(db, P, EVERY)).rows).toHaveLength(results.length - refused.length);
    } finally {
      await oneRun.close();
    }
  });

  it('SSH host key pins: set, replace, forget', async () => {
    await pinHostKey(db, 'VDU1-0', 'SHA256:one');
    await pinHostKey(db, 'VDU1-0', 'SHA256:two');
    await pinHostKey(db, 'VDU1-1', 'SHA256:three');
    expect(await pinnedHostKey(db, 'VDU1-0')).toBe('SHA256:two');
    await forgetHostKeys(db, ['VDU1-0', 'unknown']);
    expect(await pinnedHostKey(db, 'VDU1-0')).toBeUndefined();
    expect(await pinnedHostKey(db, 'VDU1-1')).toBe('SHA256:three');
  });

  it('coordination waits: due ones claimed once among concurrent pollers, taken over by a retry, kept from a stale attempt', async () => {
    const op = await newOp(A, await instanceOf(A, await onboarded(A, 'vnfd-waits')), 'CHANGE_VNFPKG');
    const t0 = Date.now();
    const wait = (i: number, nextPollAt: number): CoordinationWait => ({
      id: `${op.id}/VDU1-${i}/update/new`, opOccId: op.id, args: '{}', taskToken: `token-${i}`, location: null, deadline: t0 + 600_000, timeoutMs: 600_000, nextPollAt,
    });
    for (let i = 0; i < 12; i++) await parkWait(db, wait(i, i < 10 ? t0 - 1000 + i : t0 + 60_000));
    // two pollers at once: the 10 due waits, each claimed by one of them
    const [x, y] = await Promise.all([claimDueWaits(db, t0, t0 + 60_000, 10), claimDueWaits(db, t0, t0 + 60_000, 10)]);
    const ids = [...x, ...y].map((w) => w.id).sort();
    expect(ids).toEqual(Array.from({ length: 10 }, (_, i) => wait(i, 0).id).sort());
    expect([...x, ...y].every((w) => w.nextPollAt === t0 + 60_000)).toBe(true);
    expect(await claimDueWaits(db, t0 + 1, t0 + 60_000, 10)).toEqual([]);
    // a retry's attempt takes wait 0 over: the poll of the old attempt may not reschedule or remove it
    expect(await rearmWait(db, wait(0, 0).id, 'token-0-retry', t0)).toBe(true);
    expect(await rearmWait(db, `${op.id}/none/update/new`, 'token', t0)).toBe(false);
    expect(await rescheduleWait(db, wait(0, 0), { location: 'http://em/lcmcoord/1', nextPollAt: t0 + 5000 })).toBe(false);
    await removeWait(db, wait(0, 0).id, 'token-0');
    expect(await waitById(db, wait(0, 0).id)).toMatchObject({ taskToken: 'token-0-retry', nextPollAt: t0, location: null });
    expect(await rescheduleWait(db, { id: wait(0, 0).id, taskToken: 'token-0-retry' }, { location: 'http://em/lcmcoord/1', nextPollAt: t0 + 5000 })).toBe(true);
    expect(await waitById(db, wait(0, 0).id)).toMatchObject({ location: 'http://em/lcmcoord/1', nextPollAt: t0 + 5000 });
    await removeWait(db, wait(0, 0).id, 'token-0-retry');
    expect(await waitById(db, wait(0, 0).id)).toBeUndefined();
  });
});
