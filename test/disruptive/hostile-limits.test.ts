/**
 * Hostile callers vs. the request and package limits (README, "Limits"):
 * every attack goes through the running API and ends in a 4xx or a failed
 * onboarding naming the limit, with the API's memory bounded. Limits that
 * would need gigabytes to reach at their defaults are also checked on the
 * limit logic itself with small caps.
 */
import AdmZip from 'adm-zip';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { sampleVariant } from '../../samples/variant';
import { tooDeepAt } from '../../api/limits/json-depth';
import { hostNameOf } from '../../api/limits/host-check';
import { DirectoryContentStore, packageKeys, TooLarge } from '../../store/content';
import { PackageError } from '../../vnfpkg';
import { readState } from '../harness/state';
import { adminToken, apiUrl, call, eventually, onboard, temporalClient } from '../support/api';
import { withProductStore } from '../support/product-store';
import { readZip } from '../support/vnfpkg-fixtures';

const ONE_VDU = path.resolve(__dirname, '../../samples/one_vdu_vnf');
const PACKAGES = '/vnfpkgm/v1/vnf_packages';
/** The harness's PACKAGE_MAX_BYTES (test/harness/setup.ts). */
const PACKAGE_CAP = Number(readState().env.PACKAGE_MAX_BYTES);

/** The API process's resident memory (kB). */
function apiRssKb(): number {
  const status = fs.readFileSync(`/proc/${readState().pids.api}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

/** A request with the exact headers given (Host, Content-Length, Content-Encoding), no client-side help. */
async function raw(method: string, p: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; text: string }> {
  const url = new URL(apiUrl());
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path: p, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => { resolve({ status: res.statusCode!, text }); req.destroy(); });
    });
    req.on('error', reject);
    if (body) req.write(body);
    // A body announced longer than sent is left open: the answer must come without it.
    if (!headers['content-length'] || Number(headers['content-length']) === (body?.length ?? 0)) req.end();
  });
}

/** gzip members concatenated: `megabytes` MB of zeros once inflated, about 1 kB per MB on the wire. */
function gzipOfZeros(megabytes: number): Buffer {
  const member = zlib.gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: megabytes }, () => member));
}

async function newPackage(): Promise<string> {
  const created = await call('POST', PACKAGES, {});
  expect(created.status).toBe(201);
  return created.body.id;
}

async function settledPackage(id: string): Promise<any> {
  return eventually(`package ${id} onboarding`, async () => {
    const p = (await call('GET', `${PACKAGES}/${id}`)).body;
    return p.onboardingState === 'ONBOARDED' || (p.onboardingState === 'CREATED' && p.onboardingFailureDetails) ? p : undefined;
  });
}

/** Attempts of the onboardPackage activity in the package's (latest) onboarding workflow. */
async function onboardAttempts(packageId: string): Promise<number> {
  const client = await temporalClient();
  try {
    const ids = await eventually(`the onboarding workflow of ${packageId}`, async () => {
      const found: string[] = [];
      for await (const wf of client.workflow.list({ query: "WorkflowType = 'onboard'" })) if (wf.workflowId.startsWith(`onboard-${packageId}-`)) found.push(wf.workflowId);
      return found.length ? found : undefined;
    });
    expect(ids).toHaveLength(1);
    const history = await client.workflow.getHandle(ids[0]).fetchHistory();
    const started = history.events!.filter((e) => e.activityTaskStartedEventAttributes);
    return started[0].activityTaskStartedEventAttributes!.attempt!;
  } finally {
    await client.connection.close();
  }
}

describe('JSON bodies', () => {
  test('over 1 MB: 413 naming the limit', async () => {
    const r = await call('POST', PACKAGES, { userDefinedData: { x: 'a'.repeat(1024 * 1024 + 10) } });
    expect(r.status).toBe(413);
    expect(r.body.detail).toContain('API_MAX_JSON_BYTES');
    expect(r.body.detail).toContain(String(1024 * 1024));
  });

  test('200,000 levels deep: 400 naming where, not 500', async () => {
    const deep = '{"userDefinedData":{"x":' + '['.repeat(200_000) + ']'.repeat(200_000) + '}}';
    const r = await call('POST', PACKAGES, deep);
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain('API_MAX_JSON_DEPTH');
    expect(r.body.detail).toMatch(/at \$\.userDefinedData\.x\[0\]/);
    // 62 levels are not refused for their depth
    const ok = await call('POST', PACKAGES, { userDefinedData: { x: JSON.parse('['.repeat(60) + ']'.repeat(60)) } });
    expect(ok.body?.detail ?? '').not.toContain('API_MAX_JSON_DEPTH');
  });

  test('the depth walk is iterative and names the path', () => {
    let v: unknown = 1;
    for (let i = 0; i < 300_000; i++) v = { a: [v] };
    expect(tooDeepAt(v, 64)).toMatch(/^\$\.a\[0\]\.a\[0\]/);
    expect(tooDeepAt({ a: { b: [1, { c: 2 }] } }, 4)).toBeUndefined();
    expect(tooDeepAt({ a: { b: [1, { c: {} }] } }, 4)).toBe('$.a.b[1].c');
  });
});

describe('compressed bodies are never inflated past the caps', () => {
  test('a gzip bomb (1.5 GB of zeros) as JSON or as package content: 4xx fast, API memory bounded', async () => {
    const bomb = gzipOfZeros(1500);
    expect(bomb.length).toBeLessThan(3 * 1024 * 1024);
    const id = await newPackage();
    const token = await adminToken();
    const before = apiRssKb();
    const started = Date.now();
    const asJson = await raw('POST', PACKAGES, { 'x-auth-token': token, 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) }, bomb);
    expect(asJson.status).toBe(413);
    const asPackage = await raw('PUT', `${PACKAGES}/${id}/package_content`, { 'x-auth-token': token, 'content-type': 'application/zip', 'content-encoding': 'gzip', 'content-length': String(bomb.length) }, bomb);
    expect(asPackage.status).toBeGreaterThanOrEqual(400);
    expect(asPackage.status).toBeLessThan(500);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(apiRssKb() - before).toBeLessThan(64 * 1024);
    expect((await call('GET', `${PACKAGES}/${id}`)).body.onboardingState).toBe('CREATED');
  });
});

describe('media types', () => {
  test('non-JSON bodies get 415; zip uploads take application/zip or octet-stream; bodiless POSTs need none', async () => {
    const form = await call('POST', PACKAGES, 'userDefinedData=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.body.detail).toContain('application/json');
    expect((await call('POST', PACKAGES, '{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await call('POST', '/vnflcm/v1/vnf_instances', '{}', { 'content-type': 'text/plain' })).status).toBe(415);

    const id = await newPackage();
    const { zip } = sampleVariant(ONE_VDU);
    expect((await call('PUT', `${PACKAGES}/${id}/package_content`, zip, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await call('PUT', `${PACKAGES}/${id}/package_content`, zip, { 'content-type': 'multipart/form-data; boundary=x' })).status).toBe(415);
    expect((await call('GET', `${PACKAGES}/${id}`)).body.onboardingState).toBe('CREATED');
    // python-tackerclient sends application/zip; octet-stream is accepted too
    expect((await call('PUT', `${PACKAGES}/${id}/package_content`, zip, { 'content-type': 'application/octet-stream' })).status).toBe(202);
    expect((await settledPackage(id)).onboardingState).toBe('ONBOARDED');

    // PATCH takes merge-patch+json
    expect((await call('PATCH', `${PACKAGES}/${id}`, JSON.stringify({ userDefinedData: { k: 'v' } }), { 'content-type': 'application/merge-patch+json' })).status).toBe(200);
    // retry/rollback/fail/cancel carry no body: no media type needed (404: no such op occ, not 415)
    const retry = await raw('POST', '/vnflcm/v1/vnf_lcm_op_occs/00000000-0000-0000-0000-000000000000/retry', { 'x-auth-token': await adminToken(), 'content-length': '0' });
    expect(retry.status).toBe(404);
  });
});

describe('Host header (DNS rebinding)', () => {
  test('an unknown Host gets 400; loopback names and the API base URL host pass', async () => {
    const token = await adminToken();
    const evil = await raw('GET', '/vnflcm/v1/vnf_instances', { host: 'evil.test', 'x-auth-token': token });
    expect(evil.status).toBe(400);
    expect(evil.text).toContain('API_ALLOWED_HOSTS');
    expect((await raw('GET', '/healthz', { host: 'evil.test:80' })).status).toBe(400);
    const port = new URL(apiUrl()).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST']) {
      expect((await raw('GET', '/vnflcm/v1/vnf_instances', { host, 'x-auth-token': token })).status).toBe(200);
    }
  });

  test('host names are compared without port or brackets', () => {
    expect(hostNameOf('Example.COM:8080')).toBe('example.com');
    expect(hostNameOf('[::1]:9890')).toBe('::1');
    expect(hostNameOf('127.0.0.1')).toBe('127.0.0.1');
  });
});

describe('package upload size', () => {
  test('over PACKAGE_MAX_BYTES: 413 (announced or streamed), the package stays CREATED, a new PUT works', async () => {
    const id = await newPackage();
    const token = await adminToken();
    const url = `${PACKAGES}/${id}/package_content`;
    // announced: refused before any of it is read
    const announced = await raw('PUT', url, { 'x-auth-token': token, 'content-type': 'application/zip', 'content-length': String(PACKAGE_CAP + 1) }, Buffer.alloc(1024));
    expect(announced.status).toBe(413);
    expect(announced.text).toContain('PACKAGE_MAX_BYTES');
    // streamed (chunked, no length): counted while written to disk
    const chunk = Buffer.alloc(1024 * 1024, 1);
    const body = Readable.from((function* () { for (let i = 0; i <= PACKAGE_CAP / chunk.length; i++) yield chunk; })());
    const streamed = await fetch(`${apiUrl()}${url}`, {
      method: 'PUT', headers: { 'x-auth-token': token, 'content-type': 'application/zip' }, body: Readable.toWeb(body) as ReadableStream, duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await call('GET', `${PACKAGES}/${id}`)).body.onboardingState).toBe('CREATED');
    // nothing of the refused uploads in the product's content store, whichever it is
    await withProductStore(async (db) => {
      expect(await db.content.size(packageKeys.zip(id))).toBeUndefined();
      expect(await db.content.sweepAbandoned(-60_000)).toBe(0);
    });

    const { zip } = sampleVariant(ONE_VDU);
    expect((await call('PUT', url, zip)).status).toBe(202);
    const p = await settledPackage(id);
    expect(p.onboardingState).toBe('ONBOARDED');
    // stored in the content store, served from there (whole and by range), removed with the package
    await withProductStore(async (db) => expect((await db.content.getBuffer(packageKeys.zip(id), zip.length))?.equals(zip)).toBe(true));
    const content = await fetch(`${apiUrl()}${url}`, { headers: { 'x-auth-token': token } });
    expect(content.headers.get('content-length')).toBe(String(zip.length));
    expect(Buffer.from(await content.arrayBuffer()).equals(zip)).toBe(true);
    const part = await fetch(`${apiUrl()}${url}`, { headers: { 'x-auth-token': token, range: 'bytes=10-99' } });
    expect([part.status, part.headers.get('content-range')]).toEqual([206, `bytes 10-99/${zip.length}`]);
    expect(Buffer.from(await part.arrayBuffer()).equals(zip.subarray(10, 100))).toBe(true);
    const beyond = await fetch(`${apiUrl()}${url}`, { headers: { 'x-auth-token': token, range: `bytes=${zip.length}-` } });
    expect([beyond.status, beyond.headers.get('content-range')]).toEqual([416, `bytes */${zip.length}`]);
    expect((await call('PATCH', `${PACKAGES}/${id}`, { operationalState: 'DISABLED' })).status).toBe(200);
    expect((await call('DELETE', `${PACKAGES}/${id}`)).status).toBe(204);
    await withProductStore(async (db) => {
      expect(await db.content.size(packageKeys.zip(id))).toBeUndefined();
      expect(await db.content.size(packageKeys.file(id, 'TOSCA-Metadata/TOSCA.meta'))).toBeUndefined();
    });
  });

  test('the content store refuses a stream past the cap and leaves no file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pkg-store-'));
    try {
      const store = new DirectoryContentStore(dir);
      const key = packageKeys.zip('11111111-2222-3333-4444-555555555555');
      await expect(store.put(key, Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { maxBytes: 1000 })).rejects.toBeInstanceOf(TooLarge);
      expect(fs.readdirSync(path.join(dir, '.tmp'))).toEqual([]);
      expect(await store.size(key)).toBeUndefined();
      await store.put(key, Readable.from([Buffer.alloc(600)]), { maxBytes: 1000 });
      expect(await store.size(key)).toBe(600);
      expect(() => store.pathOf('../etc/passwd')).toThrow();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('package content', () => {
  test('a zip bomb fails onboarding naming the limit, attempted once', async () => {
    const z = new AdmZip();
    z.addFile('TOSCA-Metadata/TOSCA.meta', Buffer.from('TOSCA-Meta-File-Version: 1.0\n'));
    z.addFile('Files/bomb.img', Buffer.alloc(64 * 1024 * 1024));
    const bomb = z.toBuffer();
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const p = await onboard(bomb);
    expect(p.onboardingState).toBe('CREATED');
    expect(p.onboardingFailureDetails.detail).toMatch(/Zip entry "Files\/bomb\.img" inflates more than 200 times .*PACKAGE_MAX_RATIO/);
    expect(await onboardAttempts(p.id)).toBe(1);
  });

  test('more than 10,000 entries fail onboarding naming the limit', async () => {
    const z = new AdmZip();
    for (let i = 0; i <= 10_000; i++) z.addFile(`Files/f${i}`, Buffer.alloc(0));
    const p = await onboard(z.toBuffer());
    expect(p.onboardingState).toBe('CREATED');
    expect(p.onboardingFailureDetails.detail).toContain('has 10001 zip entries, more than 10000 (PACKAGE_MAX_ENTRIES)');
    expect(await onboardAttempts(p.id)).toBe(1);
  });

  test('the total inflated size is capped on the bytes produced, not the sizes declared', async () => {
    const z = new AdmZip();
    z.addFile('TOSCA-Metadata/TOSCA.meta', Buffer.from('TOSCA-Meta-File-Version: 1.0\n'));
    for (let i = 0; i < 4; i++) z.addFile(`Files/f${i}`, Buffer.alloc(300 * 1024, i));
    const zip = z.toBuffer();
    const limits = { unzippedBytes: 1024 * 1024, ratio: 200, entries: 100, vnfdBytes: 1e6, vnfdFileBytes: 1e6, vduInstances: 10 };
    await expect(readZip(zip, limits)).rejects.toThrow(/inflates to more than 1048576 bytes \(PACKAGE_MAX_UNZIPPED_BYTES\)/);
    // an entry whose directory claims 1 byte is stopped when the bytes it produces pass the cap
    const lying = Buffer.from(zip);
    const cen = lying.lastIndexOf(Buffer.from('Files/f0')) - 46; // central directory header of Files/f0
    expect(lying.readUInt32LE(cen)).toBe(0x02014b50);
    lying.writeUInt32LE(1, cen + 24); // its uncompressed size
    await expect(readZip(lying, { ...limits, unzippedBytes: 100 * 1024 })).rejects.toThrow(/PACKAGE_MAX_UNZIPPED_BYTES/);
    await expect(readZip(lying, { ...limits, unzippedBytes: 1e9 })).rejects.toThrow(PackageError);
  });

  test('a VDU asking for more than 100 instances fails onboarding naming it', async () => {
    const { zip } = sampleVariant(ONE_VDU, { editYaml: (_p, t) => t.replace('max_number_of_instances: 1', 'max_number_of_instances: 100001') });
    const p = await onboard(zip);
    expect(p.onboardingState).toBe('CREATED');
    expect(p.onboardingFailureDetails.detail).toContain('VDU VDU1: vdu_profile.max_number_of_instances is 100001, more than 100 (MAX_VDU_INSTANCES)');
  });

  test('YAML aliases expanding descriptions past 4 MB fail onboarding, so GET /vnf_packages stays bounded', async () => {
    const big = 'x'.repeat(50 * 1024);
    const levels = Array.from({ length: 99 }, (_, i) => `            level_${i}:\n              description: *big\n`).join('');
    const { zip } = sampleVariant(ONE_VDU, {
      editYaml: (_p, t) => t.replace('              description: The only size\n', `              description: &big "${big}"\n${levels}`),
    });
    expect(zip.length).toBeLessThan(1024 * 1024);
    const p = await onboard(zip);
    expect(p.onboardingState).toBe('CREATED');
    expect(p.onboardingFailureDetails.detail).toMatch(/The VNFD model is \d+ bytes as stored, more than 4194304 \(PACKAGE_MAX_VNFD_BYTES\)/);
  });
});
