/**
 * One context per activity (lcm-activities/op-context.ts): an LCM activity reads
 * its op occ, its instance and each VNFD once, however many helpers need
 * them. Counted on a real SQLite store with an onboarded product sample:
 * every SELECT's table is noted as it runs.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { getTableName, type Table } from 'drizzle-orm';
import { opContext } from '../../lcm-activities/op-context';
import { stackSpecFor } from '../../lcm-activities/stack';
import { loadConfig } from '../../common/config';
import { openStore, type Q, type Store } from '../../store';
import { createInstance } from '../../store/repos/instances';
import { createOpOcc } from '../../store/repos/op-occs';
import { claimUpload, createPackage } from '../../store/repos/packages';
import { createLogger } from '../../common/log';
import { SecretBox } from '../../common/secrets';
import { packageActivities } from '../../ops/vnfpkgm/onboard/activities';
import { readFolderFiles } from '../../samples/build';
import { packageKeys } from '../../store/content';
import { zipFiles } from '../support/vnfpkg-fixtures';

/** The store, with the table of every SELECT it runs noted in `reads`. */
function counted(store: Store): { store: Store; reads: string[] } {
  const reads: string[] = [];
  const bind = <T extends object>(target: T, p: string | symbol) => {
    const v = Reflect.get(target, p);
    return typeof v === 'function' ? v.bind(target) : v;
  };
  const selects = (db: Q['db']) => new Proxy(db, {
    get(target, p) {
      if (p !== 'select') return bind(target, p);
      return (...args: unknown[]) => new Proxy((target.select as (...a: unknown[]) => object)(...args), {
        get(builder, q) {
          if (q !== 'from') return bind(builder, q);
          return (table: Table) => {
            reads.push(getTableName(table));
            return (builder as { from(t: Table): unknown }).from(table);
          };
        },
      });
    },
  });
  const withCount = (q: Q): Q => ({ ...q, db: selects(q.db) });
  return { store: { ...store, read: (fn) => store.read((q) => fn(withCount(q))), tx: (fn) => store.tx((q) => fn(withCount(q))) }, reads };
}

const timesRead = (reads: string[]) => reads.reduce<Record<string, number>>((n, t) => ({ ...n, [t]: (n[t] ?? 0) + 1 }), {});

let dir: string;
let db: Store;
const box = new SecretBox(crypto.randomBytes(32));
const cfg = loadConfig();
let packageId: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'op-context-'));
  db = await openStore({ dataDir: dir });
  packageId = crypto.randomUUID();
  const zip = zipFiles(readFolderFiles(path.resolve(__dirname, '../../samples/two_vdu_vnf')));
  await createPackage(db, { id: packageId, projectId: 'p', userDefinedData: {} });
  await db.content.put(packageKeys.zip(packageId), Readable.from([zip]), { maxBytes: zip.length });
  expect(await claimUpload(db, packageId)).toBe(true);
  await packageActivities({ db, cfg, log: createLogger('test', 'silent'), box }).onboardPackage({ packageId });
});

afterAll(async () => {
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A NOT_INSTANTIATED instance of the sample with an INSTANTIATE op occ in PROCESSING; the op occ's id. */
async function instantiating(request: Record<string, unknown>): Promise<string> {
  const now = new Date().toISOString();
  const { instance } = await createInstance(db, {
    id: crypto.randomUUID(), projectId: 'p', vnfdId: 'd', vnfPkgId: packageId, vnfProvider: 'acme', vnfProductName: 'fw', vnfSoftwareVersion: '1.0', vnfdVersion: '1.0',
    instantiationState: 'NOT_INSTANTIATED', vimConnectionInfo: [], metadata: {}, createdAt: now,
  });
  const op = await createOpOcc(db, {
    scope: { projectId: 'p', all: false }, instanceId: instance.id, withInstance: async () => undefined,
    row: { id: crypto.randomUUID(), operation: 'INSTANTIATE', operationState: 'PROCESSING', stateEnteredTime: now, startTime: now, operationParams: {}, operationParamsSealed: box.sealJson(request) },
  });
  return op.id;
}

describe('an activity context', () => {
  it('reads the op occ, the instance and the VNFD once for any number of stack specs', async () => {
    const opOccId = await instantiating({ flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }] });
    const { store, reads } = counted(db);
    const deps = { db: store, box, cfg, log: createLogger('test', 'silent') };
    const ctx = await opContext(deps, opOccId);
    // as createStack builds its spec, and as a change_vnfpkg update builds one per package (here the same one, named and not)
    const spec = await stackSpecFor(deps, ctx);
    const first = [...reads];
    expect(await stackSpecFor(deps, ctx, { packageId })).toEqual(spec);
    expect(await ctx.flavour()).toMatchObject({ flavourId: 'simple' });
    expect(Object.keys(spec.template.resources ?? {}).length).toBeGreaterThan(0);
    expect(timesRead(first)).toMatchObject({ vnf_lcm_op_occs: 1, vnf_instances: 1, vnf_packages: 1 });
    // the second spec, and the flavour, read nothing more
    expect(reads).toEqual(first);
  });

  it('is made anew by each activity (a retry reads the rows again)', async () => {
    const opOccId = await instantiating({ flavourId: 'simple' });
    const { store, reads } = counted(db);
    for (let attempt = 0; attempt < 2; attempt++) await (await opContext({ db: store, box }, opOccId)).vnfd();
    expect(timesRead(reads)).toEqual({ vnf_lcm_op_occs: 2, vnf_instances: 2, vnf_packages: 2 });
  });

  it('takes the flavour from the request at instantiate, and is refused a flavour the VNFD lacks', async () => {
    const ctx = await opContext({ db, box }, await instantiating({ flavourId: 'nonexistent' }));
    expect(await ctx.flavour()).toBeUndefined();
    const deps = { db, box, cfg, log: createLogger('test', 'silent') };
    await expect(stackSpecFor(deps, ctx)).rejects.toThrow(/flavour not in the VNFD/);
  });
});
