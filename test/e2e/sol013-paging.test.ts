/**
 * SOL013 paging and filtering through the real API (issue 24 item 1), in a
 * project of its own: more instances than a page (the harness's
 * LIST_PAGE_SIZE, 40; the default, 100, is a project's default quota); the
 * first page carries `Link: <...>; rel="next"` with nextpage_opaque_marker,
 * followed to the end while other instances are created (each existing one
 * seen once, in creation order, the new ones after); a filter applies to
 * every page and its link keeps it; a malformed filter or a foreign marker is
 * a 400 naming it; the stock `openstack vnflcm list` follows the links and
 * shows them all. Runs on SQLite and, in the pg tier, on PostgreSQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sampleVariant } from '../../samples/variant';
import { call, onboard, type Res } from '../support/api';
import { readState } from '../harness/state';
import { keystoneUser, type TestUser } from '../support/identity';
import { openstackCli } from '../support/openstack-cli';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const PAGE = Number(readState().env.LIST_PAGE_SIZE);
const run = Date.now().toString(36);
let user: TestUser;
let vnfdId: string;
const created: string[] = [];

/** Runs `fn` over `items`, `width` at a time. */
async function inBatches<T>(items: T[], width: number, fn: (x: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
}

async function create(name: string): Promise<string> {
  const r = await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId, vnfInstanceName: name, metadata: { tag: name } }, await user.headers());
  expect(r.status).toBe(201);
  created.push(r.body.id);
  return r.body.id;
}

/** The next page's path and query, from a Link header. */
function nextOf(r: Res): string | undefined {
  const link = r.headers.get('link');
  if (!link) return undefined;
  const m = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(m).not.toBeNull();
  const url = new URL(m![1]);
  expect(url.searchParams.get('nextpage_opaque_marker')).toBeTruthy();
  return `${url.pathname}${url.search}`;
}

beforeAll(async () => {
  user = await keystoneUser(`paging-project-${run}`, `paging-user-${run}`, 'member');
  vnfdId = (await onboard(sampleVariant(SAMPLE).zip, await user.headers())).vnfdId;
  // one at a time first, so that creation order is the name order
  for (let i = 0; i < 5; i++) await create(`vnf-${String(i).padStart(3, '0')}`);
  await inBatches(Array.from({ length: PAGE }, (_, i) => i + 5), 10, async (i) => { await create(`vnf-${String(i).padStart(3, '0')}`); });
}, 300_000);

afterAll(async () => {
  await inBatches(created, 10, async (id) => { await call('DELETE', `/vnflcm/v1/vnf_instances/${id}`, undefined, await user.headers()); });
}, 300_000);

test(`pages of ${PAGE} with a next link, followed to the end while instances are created: every one once, the new ones last`, async () => {
  const existing = [...created];
  const seen: string[] = [];
  const added: string[] = [];
  let next: string | undefined = '/vnflcm/v1/vnf_instances';
  let pages = 0;
  while (next) {
    const r = await call('GET', next, undefined, await user.headers());
    expect(r.status).toBe(200);
    expect(r.body.length).toBeLessThanOrEqual(PAGE);
    seen.push(...r.body.map((i: { id: string }) => i.id));
    next = nextOf(r);
    if (pages++ === 0) {
      expect(r.body).toHaveLength(PAGE);
      expect(next).toBeDefined();
      for (let i = 0; i < 3; i++) added.push(await create(`late-${i}`));
    }
    expect(pages).toBeLessThan(5);
  }
  expect(pages).toBe(2);
  expect(new Set(seen).size).toBe(seen.length);
  // creation order: those that existed (the concurrent batch in whatever order it landed), then the new ones
  expect(seen.slice(0, existing.length).sort()).toEqual([...existing].sort());
  expect(seen.slice(existing.length)).toEqual(added);
}, 120_000);

test('a filter holds on every page and its next link keeps it; attribute selectors shape each page', async () => {
  const first = await call('GET', `/vnflcm/v1/vnf_instances?filter=${encodeURIComponent('(cont,vnfInstanceName,vnf-)')}&exclude_default`, undefined, await user.headers());
  expect(first.status).toBe(200);
  expect(first.body).toHaveLength(PAGE);
  expect(first.body.every((i: any) => i.vnfInstanceName.startsWith('vnf-') && i.instantiatedVnfInfo === undefined)).toBe(true);
  const next = nextOf(first)!;
  expect(new URL(next, 'http://x').searchParams.get('filter')).toBe('(cont,vnfInstanceName,vnf-)');
  const second = await call('GET', next, undefined, await user.headers());
  expect(second.body.map((i: any) => i.vnfInstanceName)).toHaveLength(5);
  expect(second.body.every((i: any) => i.vnfInstanceName.startsWith('vnf-'))).toBe(true);
  expect(nextOf(second)).toBeUndefined();

  // what a selector asks for is read; what it leaves out is not shown
  const withMetadata = await call('GET', `/vnflcm/v1/vnf_instances?filter=${encodeURIComponent('(eq,metadata/tag,vnf-003)')}&fields=metadata`, undefined, await user.headers());
  expect(withMetadata.body.map((i: any) => [i.vnfInstanceName, i.metadata])).toEqual([['vnf-003', { tag: 'vnf-003' }]]);
  expect(first.body.every((i: any) => i.metadata === undefined && i.vimConnectionInfo === undefined)).toBe(true);

  const some = await call('GET', `/vnflcm/v1/vnf_instances?filter=${encodeURIComponent('(in,vnfInstanceName,vnf-007,vnf-042);(eq,instantiationState,NOT_INSTANTIATED)')}`, undefined, await user.headers());
  expect(some.body.map((i: any) => i.vnfInstanceName).sort()).toEqual(['vnf-007', 'vnf-042']);
  expect(some.headers.get('link')).toBeNull();
});

test('a malformed filter, an attribute the list cannot filter on, or a marker the server never gave: 400 naming it', async () => {
  const bad = async (query: string) => {
    const r = await call('GET', `/vnflcm/v1/vnf_instances?${query}`, undefined, await user.headers());
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    return r.body.detail as string;
  };
  expect(await bad(`filter=${encodeURIComponent('(eq,vnfInstanceName,x')}`)).toContain('filter: cannot parse "(eq,vnfInstanceName,x"');
  expect(await bad(`filter=${encodeURIComponent('(eq,instantiatedVnfInfo,x)')}`)).toContain('filter: instantiatedVnfInfo is not an attribute this list filters on');
  expect(await bad('nextpage_opaque_marker=not-ours')).toBe('nextpage_opaque_marker: not a marker this server gave');
  expect((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?filter=${encodeURIComponent('(regex,operation,.*)')}`, undefined, await user.headers())).body.detail)
    .toContain('unsupported operator "regex"');
});

test('the stock `openstack vnflcm list` follows the next links: every instance of the project', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paging-cli-'));
  try {
    const listed = await openstackCli(user, dir).openstack(['vnflcm', 'list'], true);
    expect(listed.map((i: { ID: string }) => i.ID).sort()).toEqual([...created].sort());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
