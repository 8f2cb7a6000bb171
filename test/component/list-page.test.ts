/**
 * Paged, filtered lists (store/repos/list-page.ts) on both stores, SQLite
 * and a real PostgreSQL with the product's migrations: SOL013's filter
 * operators on text columns, members of JSON columns and booleans, evaluated
 * in SQL; keyset pages followed to the end while rows are inserted between
 * them (none seen twice, none that existed skipped); another project's rows
 * never in a page.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '../../store';
import { createInstance, pageOfInstances } from '../../store/repos/instances';
import type { Cursor, FilterTerm } from '../../store/repos/list-page';
import { createOpOcc, pageOfOpOccs } from '../../store/repos/op-occs';
import { createPackage } from '../../store/repos/packages';
import type { Scope } from '../../store/repos/scope';
import { parseFilter } from '../../api/routes/filter';
import { startPostgres, type TestPostgres } from '../support/postgres';

const A: Scope = { projectId: 'project-a', all: false };
const B: Scope = { projectId: 'project-b', all: false };
const uuid = () => crypto.randomUUID();

let pg: TestPostgres;
beforeAll(async () => { pg = await startPostgres(); });
afterAll(() => pg?.stop());

describe.each(['sqlite', 'postgres'] as const)('lists on %s', (dialect) => {
  let dir: string;
  let db: Store;
  let pkg: string;
  let clock = Date.parse('2026-01-01T00:00:00Z');
  /** Creation times one second apart, as rows arrive; `sameTime` gives two rows the same one (the id breaks the tie). */
  const nextTime = (sameTime = false) => new Date(sameTime ? clock : (clock += 1000)).toISOString();

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'list-page-'));
    db = await openStore({ dataDir: dir, databaseUrl: dialect === 'postgres' ? pg.newDatabase() : undefined });
    pkg = uuid();
    await createPackage(db, { id: pkg, projectId: A.projectId, userDefinedData: {} });
  });
  afterEach(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function instance(scope: Scope, name: string, extra: { state?: 'INSTANTIATED' | 'NOT_INSTANTIATED'; metadata?: Record<string, unknown>; sameTime?: boolean } = {}): Promise<string> {
    const id = uuid();
    await createInstance(db, {
      id, projectId: scope.projectId, vnfInstanceName: name, vnfdId: `vnfd-${name}`, vnfPkgId: pkg, vnfProvider: 'acme', vnfProductName: 'fw', vnfSoftwareVersion: '1.0',
      vnfdVersion: '1.0', instantiationState: extra.state ?? 'NOT_INSTANTIATED', vimConnectionInfo: [], metadata: extra.metadata ?? {}, createdAt: nextTime(extra.sameTime),
      instantiateParamsSealed: 'sealed request',
    });
    return id;
  }

  const names = async (terms: FilterTerm[] | string, scope: Scope = A) => (await pageOfInstances(db, scope, { terms: typeof terms === 'string' ? parseFilter(terms) : terms, limit: 100 })).rows.map((r) => r.vnfInstanceName);

  it('filters in SQL: every SOL013 operator on text columns, members of JSON objects, and the negations holding where the attribute is absent', async () => {
    await instance(A, 'alpha', { state: 'INSTANTIATED', metadata: { tier: 'gold', site: { zone: 'z1' } } });
    await instance(A, 'beta', { metadata: { tier: 'silver' } });
    await instance(A, 'gamma,with comma', { state: 'INSTANTIATED' });
    await instance(A, "delta's", { metadata: { tier: 'gold', site: { zone: 'z2' } } });
    await instance(B, 'alpha-of-b', { state: 'INSTANTIATED', metadata: { tier: 'gold' } });

    expect(await names('')).toEqual(['alpha', 'beta', 'gamma,with comma', "delta's"]);
    expect(await names('(eq,instantiationState,INSTANTIATED)')).toEqual(['alpha', 'gamma,with comma']);
    expect(await names('(neq,instantiationState,INSTANTIATED)')).toEqual(['beta', "delta's"]);
    expect(await names('(in,vnfInstanceName,beta,\'gamma,with comma\')')).toEqual(['beta', 'gamma,with comma']);
    expect(await names('(nin,vnfInstanceName,beta,alpha)')).toEqual(['gamma,with comma', "delta's"]);
    expect(await names('(cont,vnfInstanceName,mm,lph)')).toEqual(['alpha', 'gamma,with comma']);
    expect(await names('(ncont,vnfInstanceName,a)')).toEqual([]);
    expect(await names("(eq,vnfInstanceName,'delta''s')")).toEqual(["delta's"]);
    expect(await names('(gt,vnfInstanceName,beta)')).toEqual(['gamma,with comma', "delta's"]);
    expect(await names('(gte,vnfInstanceName,beta);(lt,vnfInstanceName,delta)')).toEqual(['beta']);
    expect(await names('(lte,vnfInstanceName,alpha)')).toEqual(['alpha']);
    // members of a JSON object column, nested too
    expect(await names('(eq,metadata/tier,gold)')).toEqual(['alpha', "delta's"]);
    expect(await names('(eq,metadata/site/zone,z2)')).toEqual(["delta's"]);
    expect(await names('(neq,metadata/tier,gold)')).toEqual(['beta', 'gamma,with comma']); // absent counts as not equal
    expect(await names('(eq,metadata/tier,gold);(eq,instantiationState,INSTANTIATED)')).toEqual(['alpha']);
    // another project's rows never match
    expect(await names('(cont,vnfInstanceName,alpha)')).toEqual(['alpha']);
    expect(await names('(cont,vnfInstanceName,alpha)', B)).toEqual(['alpha-of-b']);
  });

  it('the columns of attributes the selectors leave out, and of what no list shows, are not read', async () => {
    await instance(A, 'heavy', { metadata: { tier: 'gold' } });
    const [whole] = (await pageOfInstances(db, A, { terms: [], limit: 1 })).rows;
    expect(whole.metadata).toEqual({ tier: 'gold' });
    expect(whole.instantiateParamsSealed).toBeNull(); // never read for a list
    const [lean] = (await pageOfInstances(db, A, { terms: parseFilter('(eq,metadata/tier,gold)'), limit: 1, omit: ['metadata', 'vimConnectionInfo'] })).rows;
    expect(lean).toMatchObject({ vnfInstanceName: 'heavy', metadata: {}, vimConnectionInfo: [] }); // filtered on it all the same
  });

  it('booleans of op occs, and the plain ?attribute=value terms', async () => {
    const inst = await instance(A, 'one');
    const other = await instance(A, 'two');
    for (const [instanceId, automatic] of [[inst, true], [other, false]] as const) {
      await createOpOcc(db, {
        scope: A, instanceId, withInstance: async () => undefined,
        row: { id: uuid(), operation: 'HEAL', operationState: 'STARTING', stateEnteredTime: nextTime(), startTime: nextTime(), isAutomaticInvocation: automatic, operationParams: {}, operationParamsSealed: 's' },
      });
    }
    const ops = async (f: string) => (await pageOfOpOccs(db, A, { terms: parseFilter(f), limit: 10 })).rows.map((o) => o.vnfInstanceId);
    expect(await ops('(eq,isAutomaticInvocation,true)')).toEqual([inst]);
    expect(await ops('(neq,isAutomaticInvocation,true)')).toEqual([other]);
    expect(await ops('(in,isAutomaticInvocation,true,false);(eq,operation,HEAL)')).toEqual([inst, other]);
    expect(await ops(`(eq,vnfInstanceId,${other})`)).toEqual([other]);
  });

  it('pages followed to the end while rows arrive: every row that existed once, in order, the new ones after', async () => {
    const existing: string[] = [];
    for (let i = 0; i < 10; i++) existing.push(await instance(A, `n${String(i).padStart(2, '0')}`, { sameTime: i === 5 })); // n04 and n05 share a time
    await instance(B, 'not-mine');
    const seen: string[] = [];
    const added: string[] = [];
    let after: Cursor | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await pageOfInstances(db, A, { terms: [], limit: 3, after });
      expect(page.rows.length).toBeLessThanOrEqual(3);
      seen.push(...page.rows.map((r) => r.id));
      if (!page.next) break;
      after = page.next;
      if (added.length < 3) added.push(await instance(A, `late${added.length}`)); // a client is paging while others create
    }
    expect(new Set(seen).size).toBe(seen.length);
    // creation order; n04 and n05, created at the same time, in the order of their ids (the store's collation)
    expect(seen.slice(0, 4)).toEqual(existing.slice(0, 4));
    expect(seen.slice(4, 6).sort()).toEqual(existing.slice(4, 6).sort());
    expect(seen.slice(6)).toEqual([...existing.slice(6), ...added]);
    // a page that ends exactly at the last row says there is no next one
    const all = await pageOfInstances(db, A, { terms: [], limit: existing.length + added.length });
    expect(all.next).toBeUndefined();
    expect(all.rows).toHaveLength(13);
  });
});
