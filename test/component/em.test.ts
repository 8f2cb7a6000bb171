/** The reference EM's behaviours, validation and admin API over plain HTTP (fetch). */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { LcmCoord } from '../../model/coordination';
import { type Behaviour, type Em, startEm } from '../../em/server';

const V = { version: '1.0.0' };
const JSON_V = { ...V, 'content-type': 'application/json' };

function coordReq(over: { opOcc?: string; vnfc?: string; action?: string; emBehaviour?: unknown } = {}) {
  const opOcc = over.opOcc ?? 'op-1';
  return {
    vnfInstanceId: 'vnf-1',
    vnfLcmOpOccId: opOcc,
    lcmOperationType: 'CHANGE_VNFPKG',
    coordinationActionName: over.action ?? 'prv.tacker_organization.coordination_test',
    inputParams: {
      vnfcInstanceId: over.vnfc ?? 'vnfc-1',
      ...(over.emBehaviour !== undefined ? { emBehaviour: over.emBehaviour } : {}),
    },
    _links: {
      vnfLcmOpOcc: { href: `http://127.0.0.1:9890/vnflcm/v2/vnf_lcm_op_occs/${opOcc}` },
      vnfInstance: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_instances/vnf-1' },
    },
  };
}

async function post(em: Em, body: unknown, headers: Record<string, string> = JSON_V) {
  return fetch(`${em.url}/lcmcoord/v1/coordinations`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}
const get = (url: string, headers: Record<string, string> = V) => fetch(url, { headers });
const cancel = (em: Em, id: string) => fetch(`${em.url}/lcmcoord/v1/coordinations/${id}/cancel`, { method: 'POST', headers: V });
const js = (r: Response): Promise<any> => r.json();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('reference EM', () => {
  let em: Em;
  let n = 0;
  /** a fresh op occ per test, so busy counters never carry over */
  const fresh = () => `op-${++n}`;

  beforeAll(async () => {
    em = await startEm({});
  });
  afterAll(async () => {
    await em.close();
  });
  beforeEach(() => {
    em.setBehaviour({ mode: 'sync', result: 'CONTINUE' });
  });

  it('answers synchronously CONTINUE by default: 201 + LcmCoord + absolute Location, GET gives the same, cancel is 409', async () => {
    const opOcc = fresh();
    const r = await post(em, coordReq({ opOcc }));
    expect(r.status).toBe(201);
    expect(r.headers.get('version')).toBe('1.0.0');
    const body = LcmCoord.parse(await js(r));
    expect(body).toMatchObject({
      coordinationResult: 'CONTINUE', vnfInstanceId: 'vnf-1', vnfLcmOpOccId: opOcc, lcmOperationType: 'CHANGE_VNFPKG',
      coordinationActionName: 'prv.tacker_organization.coordination_test',
    });
    const location = r.headers.get('location')!;
    expect(location).toBe(`${em.url}/lcmcoord/v1/coordinations/${body.id}`);
    expect(body._links?.self?.href).toBe(location);
    expect(body._links?.vnfLcmOpOcc?.href).toContain(opOcc);

    const g = await get(location);
    expect(g.status).toBe(200);
    expect(await js(g)).toEqual(body);
    const c = await cancel(em, body.id);
    expect(c.status).toBe(409);
    expect(c.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect((await js(c)).detail).toMatch(/already finished with CONTINUE/);

    const rec = em.coordinations().find((x) => x.id === body.id)!;
    expect(rec).toMatchObject({ state: 'DECIDED', mode: 'sync', result: 'CONTINUE', posts: 1, rejectedPosts: 0, gets: 1, cancelled: false, behaviourSource: 'em' });
    expect(rec.request.vnfLcmOpOccId).toBe(opOcc);
    expect(rec.acceptedAt).toBe(rec.decidedAt);
  });

  it('answers synchronously ABORT with an error', async () => {
    em.setBehaviour({ mode: 'sync', result: 'ABORT', warnings: 'VNFC busy' });
    const r = await post(em, coordReq({ opOcc: fresh() }));
    expect(r.status).toBe(201);
    const body = LcmCoord.parse(await js(r));
    expect(body.coordinationResult).toBe('ABORT');
    expect(body.warnings).toBe('VNFC busy');
    expect(body.error).toMatchObject({ status: 409 });
  });

  it('busy: 503 + ProblemDetails + Retry-After for the first n POSTs of a key, then the next behaviour', async () => {
    em.setBehaviour({ mode: 'busy', times: 2, retryAfter: '1', then: { mode: 'sync', result: 'CONTINUE' } });
    const opOcc = fresh();
    for (let i = 0; i < 2; i++) {
      const r = await post(em, coordReq({ opOcc }));
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.headers.get('version')).toBe('1.0.0');
      const p = await js(r);
      expect(p).toMatchObject({ status: 503 });
      expect(typeof p.detail).toBe('string');
    }
    // another VNFC of the same op occ is another key: its own busy answers
    expect((await post(em, coordReq({ opOcc, vnfc: 'vnfc-2' }))).status).toBe(503);
    const ok = await post(em, coordReq({ opOcc }));
    expect(ok.status).toBe(201);
    const body = await js(ok);
    const rec = em.coordinations().find((x) => x.id === body.id)!;
    expect(rec).toMatchObject({ posts: 3, rejectedPosts: 2, state: 'DECIDED', result: 'CONTINUE' });
    const other = em.coordinations().find((x) => x.key.vnfLcmOpOccId === opOcc && x.key.vnfcInstanceId === 'vnfc-2')!;
    expect(other).toMatchObject({ state: 'REJECTED', posts: 1, rejectedPosts: 1 });
    // the key's later POSTs are past the busy ones
    expect((await post(em, coordReq({ opOcc }))).status).toBe(201);
    // a coordination that only got 503s is no resource
    expect((await get(`${em.url}/lcmcoord/v1/coordinations/${other.id}`)).status).toBe(404);
  });

  it('busy with an HTTP-date Retry-After, then async', async () => {
    const date = new Date(Date.now() + 2000).toUTCString();
    em.setBehaviour({ mode: 'busy', times: 1, retryAfter: date, then: { mode: 'async', result: 'CONTINUE', polls: 0 } });
    const opOcc = fresh();
    const r = await post(em, coordReq({ opOcc }));
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe(date);
    const a = await post(em, coordReq({ opOcc }));
    expect(a.status).toBe(202);
    const g = await get(a.headers.get('location')!);
    expect(g.status).toBe(200);
    expect((await js(g)).coordinationResult).toBe('CONTINUE');
  });

  it('async by polls: 202 + Location + Retry-After, GET 202 for `polls` GETs, then 200', async () => {
    em.setBehaviour({ mode: 'async', result: 'ABORT', polls: 2, retryAfter: '2' });
    const r = await post(em, coordReq({ opOcc: fresh() }));
    expect(r.status).toBe(202);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(await r.text()).toBe('');
    const location = r.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${em.url}/lcmcoord/v1/coordinations/[0-9a-f-]{36}$`));
    for (let i = 0; i < 2; i++) {
      const g = await get(location);
      expect(g.status).toBe(202);
      expect(g.headers.get('retry-after')).toBe('2');
      expect(g.headers.get('version')).toBe('1.0.0');
    }
    const done = await get(location);
    expect(done.status).toBe(200);
    const body = LcmCoord.parse(await js(done));
    expect(body.coordinationResult).toBe('ABORT');
    expect(body._links?.self?.href).toBe(location);
    expect(em.coordinations().find((x) => x.id === body.id)).toMatchObject({ mode: 'async', gets: 3, posts: 1, result: 'ABORT' });
  });

  it('async by delay: 202 until delayMs passed, then 200', async () => {
    em.setBehaviour({ mode: 'async', result: 'CONTINUE', delayMs: 300 });
    const r = await post(em, coordReq({ opOcc: fresh() }));
    expect(r.status).toBe(202);
    expect(r.headers.get('retry-after')).toBe('1');
    const location = r.headers.get('location')!;
    for (let i = 0; i < 3; i++) expect((await get(location)).status).toBe(202);
    await sleep(350);
    const done = await get(location);
    expect(done.status).toBe(200);
    const body = await js(done);
    expect(body.coordinationResult).toBe('CONTINUE');
    const rec = em.coordinations().find((x) => x.id === body.id)!;
    expect(Date.parse(rec.decidedAt!) - Date.parse(rec.acceptedAt!)).toBe(300);
    expect(rec.gets).toBe(4);
  });

  it('hang: 202 forever; cancel -> 202 and the coordination ends CANCELLED', async () => {
    em.setBehaviour({ mode: 'hang' });
    const r = await post(em, coordReq({ opOcc: fresh() }));
    expect(r.status).toBe(202);
    const location = r.headers.get('location')!;
    const id = location.split('/').pop()!;
    for (let i = 0; i < 5; i++) expect((await get(location)).status).toBe(202);
    expect(em.coordinations().find((x) => x.id === id)).toMatchObject({ state: 'PENDING', mode: 'hang', cancelled: false });

    const c = await cancel(em, id);
    expect(c.status).toBe(202);
    expect(c.headers.get('version')).toBe('1.0.0');
    const g = await get(location);
    expect(g.status).toBe(200);
    expect(LcmCoord.parse(await js(g)).coordinationResult).toBe('CANCELLED');
    const rec = em.coordinations().find((x) => x.id === id)!;
    expect(rec).toMatchObject({ state: 'DECIDED', result: 'CANCELLED', cancelled: true, gets: 6 });
    expect(rec.cancelledAt).toBeTruthy();
    expect((await cancel(em, id)).status).toBe(409);
    expect((await cancel(em, 'no-such-id')).status).toBe(404);
  });

  it('decidePending decides the hanging coordinations: their next GET is 200 with the result, decided ones keep theirs', async () => {
    em.setBehaviour({ mode: 'hang', retryAfter: '30' });
    const ops = [fresh(), fresh()];
    const hanging = await Promise.all(ops.map(async (opOcc) => (await post(em, coordReq({ opOcc }))).headers.get('location')!));
    em.setBehaviour({ mode: 'sync', result: 'ABORT' });
    const decided = LcmCoord.parse(await js(await post(em, coordReq({ opOcc: fresh() }))));
    expect((await get(hanging[0])).status).toBe(202);
    expect(em.decidePending('CONTINUE', ops[1])).toBe(1); // that op occ's only
    expect((await get(hanging[0])).status).toBe(202);
    expect(em.decidePending('CONTINUE')).toBeGreaterThanOrEqual(1);
    for (const location of hanging) {
      const g = await get(location);
      expect([g.status, LcmCoord.parse(await js(g)).coordinationResult]).toEqual([200, 'CONTINUE']);
    }
    expect(em.coordinations().find((x) => x.id === decided.id)).toMatchObject({ state: 'DECIDED', result: 'ABORT' });
    expect(em.decidePending('CONTINUE')).toBe(0);
  });

  it('a request overrides the EM behaviour with inputParams.emBehaviour', async () => {
    const r = await post(em, coordReq({ opOcc: fresh(), emBehaviour: { mode: 'async', result: 'CONTINUE', polls: 1 } }));
    expect(r.status).toBe(202);
    const id = r.headers.get('location')!.split('/').pop()!;
    expect(em.coordinations().find((x) => x.id === id)).toMatchObject({ behaviourSource: 'request', mode: 'async' });
    // the next request without an override gets the EM's behaviour
    expect((await post(em, coordReq({ opOcc: fresh() }))).status).toBe(201);
    // busy per request, counted per key
    const opOcc = fresh();
    const busy: Behaviour = { mode: 'busy', times: 1, then: { mode: 'sync', result: 'ABORT' } };
    expect((await post(em, coordReq({ opOcc, emBehaviour: busy }))).status).toBe(503);
    const second = await post(em, coordReq({ opOcc, emBehaviour: busy }));
    expect(second.status).toBe(201);
    expect((await js(second)).coordinationResult).toBe('ABORT');
  });

  it('error behaviour answers the given status with ProblemDetails', async () => {
    em.setBehaviour({ mode: 'error', status: 500, detail: 'EM database down' });
    const r = await post(em, coordReq({ opOcc: fresh() }));
    expect(r.status).toBe(500);
    expect(await js(r)).toMatchObject({ status: 500, detail: 'EM database down' });
  });

  it('400 ProblemDetails naming the field of a bad LcmCoordRequest', async () => {
    const { vnfLcmOpOccId: _drop, ...noOpOcc } = coordReq();
    let r = await post(em, noOpOcc);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    let p = await js(r);
    expect(p.status).toBe(400);
    expect(p.detail).toMatch(/vnfLcmOpOccId/);

    const badLinks = { ...coordReq(), _links: { vnfLcmOpOcc: { href: 'x' } } };
    p = await js(await post(em, badLinks));
    expect(p.detail).toMatch(/_links\.vnfInstance/);

    p = await js(await post(em, { ...coordReq(), lcmOperationType: 7 }));
    expect(p.detail).toMatch(/lcmOperationType/);

    r = await post(em, coordReq({ emBehaviour: { mode: 'sync', result: 'MAYBE' } }));
    expect(r.status).toBe(400);
    expect((await js(r)).detail).toMatch(/inputParams\.emBehaviour\.result/);

    r = await post(em, coordReq({ emBehaviour: { mode: 'busy', times: 1, retryAfter: 'soon', then: { mode: 'sync', result: 'CONTINUE' } } }));
    expect(r.status).toBe(400);
    expect((await js(r)).detail).toMatch(/inputParams\.emBehaviour\.retryAfter/);

    r = await post(em, '{"vnfInstanceId": ');
    expect(r.status).toBe(400);
    expect((await js(r)).detail).toMatch(/not valid JSON/);

    r = await post(em, JSON.stringify(coordReq()), V); // no content type
    expect(r.status).toBe(400);
    expect(em.coordinations().some((c) => c.request.vnfLcmOpOccId === undefined)).toBe(false);
  });

  it('requires the Version header with major version 1', async () => {
    let r = await post(em, coordReq(), { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect((await js(r)).detail).toMatch(/Version header is required/);
    expect(r.headers.get('version')).toBe('1.0.0');
    r = await post(em, coordReq(), { 'content-type': 'application/json', version: '2.0.0' });
    expect(r.status).toBe(406);
    r = await post(em, coordReq(), { 'content-type': 'application/json', version: 'latest' });
    expect(r.status).toBe(400);
    r = await post(em, coordReq({ opOcc: fresh() }), { 'content-type': 'application/json', version: '1.0.1' });
    expect(r.status).toBe(201);
    expect((await get(`${em.url}/lcmcoord/v1/coordinations/nope`)).status).toBe(404);
  });

  it('admin API: behaviour, coordinations, requests', async () => {
    let r = await fetch(`${em.url}/em/behaviour`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'async', result: 'CONTINUE', pols: 2 }) });
    expect(r.status).toBe(400);
    expect((await js(r)).detail).toMatch(/pols/);
    r = await fetch(`${em.url}/em/behaviour`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'sync', result: 'ABORT' }) });
    expect(r.status).toBe(200);
    expect(em.behaviour()).toEqual({ mode: 'sync', result: 'ABORT' });
    expect(await js(await fetch(`${em.url}/em/behaviour`))).toEqual({ mode: 'sync', result: 'ABORT' });
    const opOcc = fresh();
    const created = await js(await post(em, coordReq({ opOcc })));
    expect(created.coordinationResult).toBe('ABORT');
    const list = await js(await fetch(`${em.url}/em/coordinations`));
    expect(list.find((c: { id: string }) => c.id === created.id)).toMatchObject({ result: 'ABORT', posts: 1 });
    const reqs = await js(await fetch(`${em.url}/em/requests`));
    expect(reqs.at(-1)).toMatchObject({ method: 'POST', path: '/lcmcoord/v1/coordinations', status: 201, version: '1.0.0' });
    expect(reqs.some((x: { path: string }) => x.path.startsWith('/em/'))).toBe(false);
    expect(() => em.setBehaviour({ mode: 'sync' } as unknown as Behaviour)).toThrow();
  });
});

describe('reference EM CLI (em/main.ts)', () => {
  const root = path.resolve(__dirname, '../..');
  const run = (env: Record<string, string>) =>
    spawn(process.execPath, ['--import', 'tsx', path.join(root, 'em/main.ts')], { cwd: root, env: { ...process.env, EM_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });

  it('starts from the environment, serves, and stops cleanly on SIGTERM', async () => {
    const child = run({ EM_PORT: '0', EM_BEHAVIOUR: JSON.stringify({ mode: 'async', result: 'CONTINUE', polls: 0 }), EM_BASIC_USER: 'tacker', EM_BASIC_PASSWORD: 'tacker' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const t = setTimeout(() => reject(new Error(`no ready line: ${out}`)), 30_000);
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /"msg":"ready"/.test(out) && /"url":"(http:\/\/[^"]+)"/.exec(out);
          if (m) {
            clearTimeout(t);
            resolve(m[1]!);
          }
        });
        child.once('exit', () => reject(new Error(`exited: ${out}`)));
      });
      const auth = { authorization: `Basic ${Buffer.from('tacker:tacker').toString('base64')}` };
      const r = await fetch(`${url}/lcmcoord/v1/coordinations`, { method: 'POST', headers: { ...JSON_V, ...auth }, body: JSON.stringify(coordReq()) });
      expect(r.status).toBe(202);
      const g = await fetch(r.headers.get('location')!, { headers: { ...V, ...auth } });
      expect(g.status).toBe(200);
      expect((await fetch(`${url}/lcmcoord/v1/coordinations`, { method: 'POST', headers: JSON_V, body: JSON.stringify(coordReq()) })).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('refuses a bad EM_BEHAVIOUR, naming the field', async () => {
    const child = run({ EM_PORT: '0', EM_BEHAVIOUR: JSON.stringify({ mode: 'busy', times: 1 }) });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(err).toMatch(/EM_BEHAVIOUR: then/);
  });
});
