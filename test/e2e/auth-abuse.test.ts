/**
 * Authentication under abuse (issue 22 item 6), on an API of this file's own
 * (the harness's store, Temporal and Keystone; the default limits) whose
 * Keystone calls pass through a counting proxy: an invalid token is asked
 * of Keystone once, a client with many failures gets 429 with Retry-After,
 * and a flood of bogus tokens from one client leaves valid callers working.
 * Clients are told apart by their loopback source address.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startComponent, waitForHttp, type Child } from '../../runtime/processes';
import { freePort } from '../harness/ports';
import { readState } from '../harness/state';
import { adminToken } from '../support/api';
import { keystoneUser } from '../support/identity';

const FLOOD = 1000;
const CONCURRENCY = 25;
const LIMIT = 50; // AUTH_FAILURES_PER_CLIENT's default

let api: Child;
let apiUrl: string;
let proxy: http.Server;
/** Token validations that reached Keystone, by the token asked about. */
const validations = new Map<string, number>();

/** Forwards to the harness's Keystone, counting GET /v3/auth/tokens per X-Subject-Token. */
async function countingKeystone(): Promise<string> {
  const target = new URL(readState().keystoneUrl);
  proxy = http.createServer((req, res) => {
    const subject = req.headers['x-subject-token'];
    if (req.method === 'GET' && req.url?.startsWith(`${target.pathname}/auth/tokens`) && typeof subject === 'string') {
      validations.set(subject, (validations.get(subject) ?? 0) + 1);
    }
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${target.pathname}`;
}

beforeAll(async () => {
  const s = readState();
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...s.env, ...s.apiEnv, API_PORT: String(port), API_BASE_URL: apiUrl, KEYSTONE_AUTH_URL: await countingKeystone(),
    AUTH_FAILURES_PER_CLIENT: String(LIMIT), AUTH_FAILURE_WINDOW_S: '60', AUTH_INVALID_TOKEN_CACHE_S: '10',
    // the default: the harness's 2 s made a known token unknown again when the flood ran slowly (a loaded machine), and so 429 from a limited address
    AUTH_TOKEN_CACHE_TTL_S: '300',
  };
  api = startComponent('api', env, fs.openSync(path.join(s.logDir, 'auth-abuse-api.log'), 'a'));
  await waitForHttp(`${apiUrl}/healthz`, 120_000, api);
}, 180_000);

afterAll(async () => {
  api?.proc.kill('SIGKILL');
  await api?.exited;
  await new Promise((r) => proxy?.close(r));
});

/** GET from a given loopback source address; status, Retry-After. */
const agents = new Map<string, http.Agent>();
function get(from: string, token: string, p = '/vnflcm/v1/vnf_instances'): Promise<{ status: number; retryAfter?: string }> {
  let agent = agents.get(from);
  if (!agent) agents.set(from, (agent = new http.Agent({ keepAlive: true, localAddress: from } as http.AgentOptions)));
  return new Promise((resolve, reject) => {
    const req = http.request(`${apiUrl}${p}`, { agent, headers: { 'x-auth-token': token } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}
afterAll(() => agents.forEach((a) => a.destroy()));

test('a token Keystone refused is refused again from the cache, without asking Keystone', async () => {
  const bogus = `bogus-${crypto.randomUUID()}`;
  const answers = [];
  for (let i = 0; i < 10; i++) answers.push((await get('127.0.0.78', bogus)).status);
  expect(answers).toEqual(Array(10).fill(401));
  expect(validations.get(bogus)).toBe(1);
});

test('1,000 bogus tokens from one client: it gets 429 with Retry-After, Keystone hears of few, valid callers keep working', async () => {
  const admin = await adminToken();
  expect((await get('127.0.0.1', admin)).status).toBe(200); // a caller the API knows
  const member = await keystoneUser(`abuse-${crypto.randomUUID().slice(0, 8)}`, `abuse-member-${crypto.randomUUID().slice(0, 8)}`, 'member');

  const flood: { status: number; retryAfter?: string }[] = [];
  const tokens = Array.from({ length: FLOOD }, () => `gAAAAA${crypto.randomBytes(90).toString('base64url')}`);
  let next = 0;
  const attacker = async () => { while (next < FLOOD) flood.push(await get('127.0.0.77', tokens[next++]!)); };
  const valid: number[] = [];
  let done = false;
  const bystanders = async () => {
    let first = true;
    while (!done) {
      valid.push((await get('127.0.0.1', admin)).status);
      // a token the API has never seen, from another client, in the middle of the flood
      if (first) valid.push((await get('127.0.0.79', await member.token())).status);
      first = false;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const watching = bystanders();
  await Promise.all(Array.from({ length: CONCURRENCY }, attacker));
  done = true;
  await watching;

  expect(flood).toHaveLength(FLOOD);
  const unauthorized = flood.filter((r) => r.status === 401).length;
  const limited = flood.filter((r) => r.status === 429);
  expect(unauthorized + limited.length).toBe(FLOOD); // nothing else: no 503, no 500
  expect(unauthorized).toBeGreaterThanOrEqual(LIMIT);
  expect(unauthorized).toBeLessThanOrEqual(LIMIT + CONCURRENCY); // the ones already in flight when the limit was reached
  for (const r of limited) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Math.max(...limited.map((r) => Number(r.retryAfter)))).toBeLessThanOrEqual(60);
  expect(tokens.filter((t) => validations.has(t)).length).toBe(unauthorized); // only those reached Keystone

  expect(valid.length).toBeGreaterThan(1);
  expect(valid.filter((s) => s !== 200)).toEqual([]);
  // the attacker is still held off, a valid caller from the same address is not
  expect((await get('127.0.0.77', `gAAAAA${crypto.randomBytes(90).toString('base64url')}`)).status).toBe(429);
  expect((await get('127.0.0.77', admin)).status).toBe(200);
});
