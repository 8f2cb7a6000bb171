/**
 * A request whose transaction the database kept refusing (StoreBusy, the
 * PostgreSQL store's retry budget spent) is the server's temporary state,
 * not a fault: the ETSI and Magnum error handlers answer 503 with
 * Retry-After, each in its API's error body, on a real Express app on
 * loopback.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { problemHandler } from '../../api/errors';
import { magnumErrorHandler } from '../../api/magnum/errors';
import { StoreBusy } from '../../store/sql-store';

let server: Server;
let base: string;
const logged: string[] = [];
const log = { error: (_o: object, m: string) => { logged.push(m); } };

beforeAll(async () => {
  const busy = () => { throw new StoreBusy(30, Object.assign(new Error('could not serialize access'), { code: '40001' })); };
  const etsi = express.Router();
  etsi.post('/vnflcm/v2/vnf_instances', busy);
  etsi.use(problemHandler(log));
  const magnum = express.Router();
  magnum.post('/v1/clusters', busy);
  magnum.use(magnumErrorHandler(log));
  const app = express();
  app.use(etsi, magnum);
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => { await new Promise((r) => server.close(r)); });

test('ETSI API: 503 with Retry-After and a ProblemDetails, not a 500', async () => {
  const r = await fetch(`${base}/vnflcm/v2/vnf_instances`, { method: 'POST' });
  expect(r.status).toBe(503);
  expect(r.headers.get('retry-after')).toBe('1');
  expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
  expect(await r.json()).toMatchObject({ status: 503, title: 'Service Unavailable', detail: expect.stringMatching(/refused the transaction 30 times.*nothing was written; send the request again/) });
  expect(logged).toEqual([]);
});

test("Magnum API: 503 with Retry-After in Magnum's error body", async () => {
  const r = await fetch(`${base}/v1/clusters`, { method: 'POST' });
  expect(r.status).toBe(503);
  expect(r.headers.get('retry-after')).toBe('1');
  const body = await r.json() as { errors: { status: number; code: string; detail: string }[] };
  expect(body.errors[0]).toMatchObject({ status: 503, code: 'server', detail: expect.stringMatching(/nothing was written; send the request again\.$/) });
  expect(logged).toEqual([]);
});
