/**
 * The OpenStack client under the outbound policy, against real HTTP servers
 * on loopback (no mocks): a VIM auth_url at the metadata address or with a
 * query, a hostile Keystone whose catalog points Heat at a denied address
 * (literal, or a name resolving there), a 20 MiB answer, and a long error
 * body carrying secrets. A server on 127.0.0.77 stands for the internal
 * target; OUTBOUND_DENY=127.0.0.77 makes it one, and it must see no
 * connection at all.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { useResolver } from '../../common/outbound';
import { HeatClient } from '../../infra/openstack/heat';
import { OpenStackHttpError } from '../../infra/openstack/http';
import { KeystoneSession } from '../../infra/openstack/keystone';

const MiB = 1024 * 1024;
const PASSWORD = 'vim-Passw0rd-xyz';
const TOKEN = 'gAAAAABtoken-secret-value-123';

interface Srv { url: string; port: number; connections: number; requests: { method: string; url: string; headers: http.IncomingHttpHeaders }[]; bytesWritten: number; close(): Promise<void>; handler: (req: http.IncomingMessage, res: http.ServerResponse) => void }

async function serve(host = '127.0.0.1'): Promise<Srv> {
  const s: Srv = { url: '', port: 0, connections: 0, requests: [], bytesWritten: 0, close: async () => undefined, handler: (_q, r) => { r.writeHead(500).end(); } };
  const server = http.createServer((req, res) => {
    s.requests.push({ method: req.method!, url: req.url!, headers: req.headers });
    req.resume();
    req.on('end', () => s.handler(req, res));
  });
  server.on('connection', () => { s.connections++; });
  await new Promise<void>((r) => server.listen(0, host, r));
  s.port = (server.address() as AddressInfo).port;
  s.url = `http://${host}:${s.port}`;
  s.close = () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
  return s;
}

/** A Keystone answering every password auth with a token and the given catalog. */
function keystoneWith(catalog: unknown[]) {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(201, { 'content-type': 'application/json', 'x-subject-token': TOKEN });
    res.end(JSON.stringify({ token: { expires_at: new Date(Date.now() + 3600_000).toISOString(), catalog } }));
  };
}
const orchestration = (url: string) => [{ type: 'orchestration', endpoints: [{ interface: 'public', region_id: 'RegionOne', url }] }];
const session = (authUrl: string) => new KeystoneSession({ authUrl, username: 'admin', password: PASSWORD, project: 'admin' });

let keystone: Srv;
let internal: Srv; // the internal service an attacker wants the worker to call
const saved = { ...process.env };

beforeAll(async () => {
  keystone = await serve();
  internal = await serve('127.0.0.77');
  internal.handler = (_q, r) => { r.writeHead(200, { 'content-type': 'application/json' }).end('{"stacks":[]}'); };
});
afterAll(async () => { await keystone.close(); await internal.close(); });
beforeEach(() => {
  keystone.requests.length = 0;
  internal.requests.length = 0;
  internal.connections = 0;
});
afterEach(() => {
  useResolver(undefined);
  for (const k of ['OUTBOUND_ALLOW', 'OUTBOUND_DENY', 'OUTBOUND_MAX_BODY_HEAT', 'OUTBOUND_MAX_BODY_KEYSTONE']) {
    if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k];
  }
});

describe('VIM auth_url', () => {
  test('at the metadata address: refused before connecting', async () => {
    const t0 = Date.now();
    const e = await session('http://169.254.169.254/v3').getToken().catch((x: Error) => x);
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toMatch(/outbound policy refuses the VIM auth_url http:\/\/169\.254\.169\.254\/v3: 169\.254\.169\.254 is link-local/);
    expect(Date.now() - t0).toBeLessThan(1000);
  }, 10_000);

  test('on a denied loopback alias: refused, the server there sees no connection', async () => {
    process.env.OUTBOUND_DENY = '127.0.0.77/32';
    await expect(session(`${internal.url}/v3`).getToken()).rejects.toThrow(/127\.0\.0\.77 is in OUTBOUND_DENY \(127\.0\.0\.77\/32\)/);
    expect(internal.connections).toBe(0);
  });

  test('with a query or fragment that would swallow /auth/tokens: refused, nothing sent', async () => {
    await expect(session(`${keystone.url}/sim/nope?`).getToken()).rejects.toThrow(/must not have a query or fragment/);
    await expect(session(`${keystone.url}/v3#x`).getToken()).rejects.toThrow(/must not have a query or fragment/);
    expect(keystone.requests).toHaveLength(0);
  });
});

describe('a hostile Keystone catalog', () => {
  test('Heat at the metadata address: refused, with the Keystone named', async () => {
    keystone.handler = keystoneWith(orchestration('http://169.254.169.254/latest/meta-data'));
    const heat = new HeatClient(session(`${keystone.url}/v3`));
    const e = await heat.listStacks().catch((x: Error) => x);
    expect((e as Error).message).toMatch(new RegExp(`Keystone at ${keystone.url}/v3 names in its catalog the orchestration endpoint, which is not called: .*169\\.254\\.169\\.254 is link-local`));
    expect(keystone.requests).toHaveLength(1); // the token request only
  }, 10_000);

  test('Heat on a denied address (literal): nothing is sent there, not even a connection', async () => {
    process.env.OUTBOUND_DENY = '127.0.0.77';
    keystone.handler = keystoneWith(orchestration(`${internal.url}/v1/admin`));
    await expect(new HeatClient(session(`${keystone.url}/v3`)).listStacks()).rejects.toThrow(/in OUTBOUND_DENY/);
    expect(internal.connections).toBe(0);
    expect(internal.requests).toHaveLength(0);
  });

  test('Heat on a host name that resolves to a denied address: refused at connect time; allowed, the socket goes to the checked address', async () => {
    useResolver(async (h) => (h === 'heat.internal.test' ? [{ address: '127.0.0.77', family: 4 }] : []));
    keystone.handler = keystoneWith(orchestration(`http://heat.internal.test:${internal.port}/v1/admin`));
    process.env.OUTBOUND_DENY = '127.0.0.77';
    const e = await new HeatClient(session(`${keystone.url}/v3`)).listStacks().catch((x: Error) => x);
    expect((e as Error).message).toMatch(/refuses the orchestration endpoint heat\.internal\.test: heat\.internal\.test resolves to 127\.0\.0\.77, which is in OUTBOUND_DENY/);
    expect(internal.connections).toBe(0);

    delete process.env.OUTBOUND_DENY; // the same name, now allowed: the request reaches 127.0.0.77 through the policy's lookup
    expect(await new HeatClient(session(`${keystone.url}/v3`)).listStacks()).toEqual([]);
    expect(internal.requests).toHaveLength(1);
    expect(internal.requests[0].headers['x-auth-token']).toBe(TOKEN);
  });
});

describe('response size caps', () => {
  /** Streams `total` bytes of a JSON string body in 64 KiB chunks, counting what the socket accepted. */
  const huge = (srv: Srv, status: number, total: number, extra: Record<string, string> = {}) => (_q: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...extra });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    res.write('{"token":{"x":"');
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        srv.bytesWritten = sent;
        if (!res.write(chunk)) { res.once('drain', pump); return; }
      }
      res.end('"}}');
    };
    res.on('close', () => { srv.bytesWritten = Math.min(srv.bytesWritten, sent); });
    pump();
  };

  test('a 20 MiB Keystone answer is aborted at 8 MiB with a clear error', async () => {
    keystone.handler = huge(keystone, 201, 20 * MiB, { 'x-subject-token': TOKEN });
    const before = process.memoryUsage().rss;
    const e = await session(`${keystone.url}/v3`).getToken().catch((x: Error) => x);
    expect((e as Error).message).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/v3\/auth\/tokens: the response is larger than 8 MiB \(OUTBOUND_MAX_BODY_KEYSTONE\); aborted/);
    expect(keystone.bytesWritten).toBeLessThan(16 * MiB); // the client hung up long before the end
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * MiB);
  }, 30_000);

  test('Content-Length above the cap is refused before reading; OUTBOUND_MAX_BODY_HEAT sets the Heat cap', async () => {
    process.env.OUTBOUND_MAX_BODY_HEAT = '256KiB';
    keystone.handler = keystoneWith(orchestration(`${internal.url}/v1/admin`));
    internal.handler = (_q, r) => { r.writeHead(200, { 'content-type': 'application/json', 'content-length': String(300 * 1024) }).end(`{"stacks":[],"p":"${'b'.repeat(300 * 1024 - 20)}"}`); };
    await expect(new HeatClient(session(`${keystone.url}/v3`)).listStacks()).rejects.toThrow(/larger than 256 KiB \(OUTBOUND_MAX_BODY_HEAT\)/);
    internal.handler = (_q, r) => { r.writeHead(200, { 'content-type': 'application/json' }).end('{"stacks":[]}'); };
  });
});

describe('error bodies', () => {
  test('a long Keystone error carrying the password: a short, masked, printable excerpt', async () => {
    keystone.handler = (_q, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 401, title: 'Unauthorized', message: `\u001b[2J\u001b[31mbad login admin/${PASSWORD}\r\n token=${TOKEN} ${'padding '.repeat(1000)}` } }));
    };
    const e = await session(`${keystone.url}/v3`).getToken().then(() => { throw new Error('expected a failure'); }, (x: OpenStackHttpError) => x);
    expect(e).toBeInstanceOf(OpenStackHttpError);
    expect(e.detail.length).toBeLessThanOrEqual(200);
    expect(e.detail).toMatch(/^bad login admin\/\*\*\*\* token=\*\*\*\* padding/);
    for (const text of [e.detail, e.message]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toMatch(/[\u0000-\u001f]/);
    }
  });

  test('a Heat error echoing the token: masked', async () => {
    keystone.handler = keystoneWith(orchestration(`${internal.url}/v1/admin`));
    internal.handler = (req, r) => {
      r.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ explanation: `rejected ${req.headers['x-auth-token']} ${'z'.repeat(3000)}` }));
    };
    const e = await new HeatClient(session(`${keystone.url}/v3`)).listStacks().then(() => { throw new Error('expected a failure'); }, (x: OpenStackHttpError) => x);
    expect(e.status).toBe(400);
    expect(e.detail).toMatch(/^rejected \*\*\*\* z+…$/);
    expect(e.detail.length).toBeLessThanOrEqual(200);
    internal.handler = (_q, r) => { r.writeHead(200, { 'content-type': 'application/json' }).end('{"stacks":[]}'); };
  });
});
