/**
 * The Keystone setup client repeats a call whose connection failed (a loaded Keystone resets or refuses at
 * times: CI #36 lost a whole harness to one "fetch failed"), and does not repeat an HTTP answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { issueToken, KeystoneError } from '../../runtime/openstack/keystone-api';

let srv: http.Server;
let url: string;
let resets = 0;
let answered = 0;
let status = 201;

beforeAll(async () => {
  srv = http.createServer((req, res) => {
    if (resets > 0) {
      resets--;
      req.socket.destroy(); // the connection dies before any answer
      return;
    }
    answered++;
    req.resume();
    req.on('end', () => {
      res.writeHead(status, status === 201 ? { 'x-subject-token': 'tok-1' } : {});
      res.end('{}');
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v3`;
});
afterAll(() => new Promise((r) => srv.close(r)));
beforeEach(() => { answered = 0; status = 201; });

const auth = { username: 'admin', password: 'p', project: 'admin' };

test('two reset connections, then the token', async () => {
  resets = 2;
  await expect(issueToken(url, auth)).resolves.toBe('tok-1');
  expect(answered).toBe(1);
});

test('an HTTP error answer is not repeated', async () => {
  status = 401;
  await expect(issueToken(url, auth)).rejects.toBeInstanceOf(KeystoneError);
  expect(answered).toBe(1);
});
