/**
 * The OpenStack clients' HTTP layer against a real HTTP server on loopback
 * that drops a kept-alive connection when the next request arrives on it (as
 * Keystone under gunicorn does with sockets idle for 2 s): the request is sent
 * again on a new connection; a fresh connection that fails is not retried.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from '../../infra/openstack/http';

let server: http.Server;
let url: string;
let dropSecondOnSocket = true;
const seen: number[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const socket = req.socket as typeof req.socket & { served?: number };
    socket.served = (socket.served ?? 0) + 1;
    seen.push(socket.served);
    if (dropSecondOnSocket && socket.served === 2) { socket.destroy(); return; }
    if (req.url === '/broken') { socket.destroy(); return; }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ n: socket.served }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('a request on a kept-alive socket the server dropped is sent again on a new one', async () => {
  expect((await request('GET', `${url}/a`)).body).toEqual({ n: 1 });
  const again = await request('GET', `${url}/b`); // reuses the socket, which the server drops
  expect(again.status).toBe(200);
  expect(again.body).toEqual({ n: 1 }); // answered on a new connection
  expect(seen).toEqual([1, 2, 1]);
});

test('with several idle sockets all dropped, the request is sent again on a new connection, not on another of them', async () => {
  server.closeAllConnections();
  seen.length = 0;
  // three sockets kept alive at once; the next request and its retry would each find a dropped one
  expect((await Promise.all(['/c', '/d', '/e'].map((p) => request('GET', `${url}${p}`)))).map((r) => r.status)).toEqual([200, 200, 200]);
  const again = await request('GET', `${url}/f`);
  expect(again.body).toEqual({ n: 1 });
  expect(seen).toEqual([1, 1, 1, 2, 1]);
});

test('a failure on a fresh connection is not retried', async () => {
  dropSecondOnSocket = false;
  server.closeAllConnections();
  seen.length = 0;
  await expect(request('GET', `${url}/broken`)).rejects.toThrow(/socket hang up|ECONNRESET/);
  expect(seen).toEqual([1]);
});
