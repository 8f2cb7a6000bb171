/**
 * The outbound policy itself (common/outbound.ts), without a network: the
 * default denies (link-local, cloud metadata, in every IPv6 disguise), loopback
 * and private ranges allowed, OUTBOUND_ALLOW / OUTBOUND_DENY syntax and
 * precedence, host names resolved by an injected resolver (there is no DNS
 * server here) with every address checked, the lookup Node's sockets call,
 * COORD_CLIENT_CERT_HOSTS matching, and the error excerpt.
 */
import { sshTargetProblem } from '../../lcm-activities/server-ssh';
import {
  addressProblem, excerpt, hostListAllows, OutboundConfigError, OutboundRefused, outboundUrlProblem, parseOutboundSettings,
  policyLookup, resolveChecked, useResolver, vimEndpointProblem, type ResolvedAddress,
} from '../../common/outbound';
import { coordinationTargetProblem } from '../../coord/client';

const defaults = parseOutboundSettings({});
const saved = { ...process.env };
afterEach(() => {
  useResolver(undefined);
  for (const k of ['OUTBOUND_ALLOW', 'OUTBOUND_DENY', 'COORD_CLIENT_CERT_HOSTS']) {
    if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k];
  }
});

describe('addresses, by default', () => {
  test.each([
    '169.254.169.254', '169.254.170.2', '169.254.0.1', 'fe80::1', 'fd00:ec2::254', '100.100.100.200', '192.0.0.192',
    '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', '::169.254.169.254', '0.0.0.0', '::', '224.0.0.1', 'ff02::1',
  ])('%s is refused', (a) => {
    expect(addressProblem(a, undefined, defaults)).toMatch(/refused by default/);
  });

  test.each(['127.0.0.1', '127.0.0.77', '::1', '10.1.2.3', '172.16.0.5', '192.168.1.1', 'fd12::1', '100.64.0.1', '8.8.8.8', '2001:db8::1'])(
    '%s is allowed (loopback, private and public ranges)', (a) => {
      expect(addressProblem(a, undefined, defaults)).toBeUndefined();
    });

  test('the metadata host names are refused by name, and 169.254.169.254 in any URL spelling', () => {
    for (const u of [
      'http://169.254.169.254/latest/meta-data', 'http://2852039166/', 'http://0xa9.0xfe.0xa9.0xfe/', 'http://[::ffff:169.254.169.254]/',
      'http://metadata.google.internal/computeMetadata/v1/', 'http://METADATA.google.internal./', 'http://[fd00:ec2::254]/',
    ]) expect(outboundUrlProblem(u, { settings: defaults })).toMatch(/outbound policy refuses/);
    expect(outboundUrlProblem('http://127.0.0.1:5000/v3', { settings: defaults })).toBeUndefined();
    expect(outboundUrlProblem('https://keystone.example.com:5000/v3', { settings: defaults })).toBeUndefined();
  });
});

describe('OUTBOUND_ALLOW / OUTBOUND_DENY', () => {
  test('deny wins over everything; allow, when set, is the only way out', () => {
    const s = parseOutboundSettings({ OUTBOUND_ALLOW: '10.0.0.0/8, keystone.example.com, *.cloud.example', OUTBOUND_DENY: '10.9.0.0/16,bad.cloud.example' });
    expect(addressProblem('10.1.1.1', undefined, s)).toBeUndefined();
    expect(addressProblem('10.9.1.1', undefined, s)).toMatch(/in OUTBOUND_DENY \(10\.9\.0\.0\/16\)/);
    expect(addressProblem('192.168.1.1', undefined, s)).toMatch(/not in OUTBOUND_ALLOW/);
    expect(addressProblem('127.0.0.1', undefined, s)).toMatch(/not in OUTBOUND_ALLOW/);
    // a host name in the allow list passes whatever (not denied) address it has
    expect(addressProblem('192.168.1.1', 'keystone.example.com', s)).toBeUndefined();
    expect(addressProblem('192.168.1.1', 'heat.cloud.example', s)).toBeUndefined();
    expect(addressProblem('192.168.1.1', 'cloud.example', s)).toMatch(/not in OUTBOUND_ALLOW/); // *.x is subdomains only
    expect(outboundUrlProblem('http://bad.cloud.example/', { settings: s })).toMatch(/in OUTBOUND_DENY \(bad\.cloud\.example\)/);
    // but never a denied address, even for an allowed name
    expect(addressProblem('169.254.169.254', 'keystone.example.com', s)).toMatch(/keystone\.example\.com resolves to 169\.254\.169\.254, which is link-local/);
  });

  test('an allow entry lifts a built-in deny only when it is at least as narrow', () => {
    expect(addressProblem('169.254.169.254', undefined, parseOutboundSettings({ OUTBOUND_ALLOW: '0.0.0.0/0,::/0' }))).toMatch(/refused by default/);
    const s = parseOutboundSettings({ OUTBOUND_ALLOW: '169.254.10.0/24,10.0.0.0/8' });
    expect(addressProblem('169.254.10.5', undefined, s)).toBeUndefined();
    expect(addressProblem('169.254.169.254', undefined, s)).toMatch(/refused by default/);
  });

  test('malformed entries are errors naming the variable', () => {
    expect(() => parseOutboundSettings({ OUTBOUND_DENY: '10.0.0.0/33' })).toThrow(OutboundConfigError);
    expect(() => parseOutboundSettings({ OUTBOUND_ALLOW: 'http://x.example' })).toThrow(/OUTBOUND_ALLOW: "http:\/\/x\.example" is not a CIDR/);
    expect(() => parseOutboundSettings({ OUTBOUND_MAX_BODY_HEAT: 'lots' })).toThrow(/OUTBOUND_MAX_BODY_HEAT/);
    expect(() => parseOutboundSettings({ COORD_CLIENT_CERT_HOSTS: 'ftp://em.example' })).toThrow(/COORD_CLIENT_CERT_HOSTS/);
    expect(parseOutboundSettings({ OUTBOUND_MAX_BODY_HEAT: '64MiB', OUTBOUND_MAX_BODY_COORD: '512k' }).maxBody)
      .toEqual({ keystone: 8 * 1024 * 1024, heat: 64 * 1024 * 1024, coord: 512 * 1024 });
  });

  test('URL shape: http(s) only, no credentials, base URLs without query or fragment', () => {
    expect(vimEndpointProblem('ftp://127.0.0.1/v3')).toMatch(/must be http or https/);
    expect(vimEndpointProblem('http://admin:pw@127.0.0.1/v3')).toMatch(/must not carry credentials/);
    expect(vimEndpointProblem('http://admin:pw@127.0.0.1/v3')).not.toContain('pw');
    expect(vimEndpointProblem('http://127.0.0.1:9891/sim/nope?')).toMatch(/query or fragment/); // H3: "?" swallowed /auth/tokens
    expect(vimEndpointProblem('http://127.0.0.1:9891/sim/nope#')).toMatch(/query or fragment/);
    expect(vimEndpointProblem('http://169.254.169.254/v3')).toMatch(/outbound policy refuses the VIM auth_url/);
    expect(vimEndpointProblem('http://127.0.0.1:5000/v3')).toBeUndefined();
    expect(vimEndpointProblem('not a url')).toMatch(/not an absolute URL/);
  });
});

describe('host names: every resolved address is checked', () => {
  const table: Record<string, ResolvedAddress[]> = {
    'em.test': [{ address: '127.0.0.1', family: 4 }],
    'rebind.test': [{ address: '10.0.0.5', family: 4 }, { address: '169.254.169.254', family: 4 }],
    'alias.test': [{ address: '127.0.0.77', family: 4 }],
    'v6.test': [{ address: '::ffff:169.254.169.254', family: 6 }],
  };
  const fake = async (h: string) => table[h] ?? [];

  test('resolveChecked refuses a name with any denied address', async () => {
    useResolver(fake);
    const s = parseOutboundSettings({ OUTBOUND_DENY: '127.0.0.77' });
    await expect(resolveChecked('em.test', { settings: s })).resolves.toEqual(table['em.test']);
    await expect(resolveChecked('rebind.test', { settings: s })).rejects.toThrow(/rebind\.test resolves to 169\.254\.169\.254/);
    await expect(resolveChecked('alias.test', { settings: s, purpose: 'coordination endpoint' }))
      .rejects.toThrow(/refuses the coordination endpoint alias\.test: alias\.test resolves to 127\.0\.0\.77, which is in OUTBOUND_DENY/);
    await expect(resolveChecked('v6.test', { settings: s })).rejects.toThrow(OutboundRefused);
    await expect(resolveChecked('nowhere.test', { settings: s })).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  test('policyLookup answers Node in both forms, with exactly the checked addresses', async () => {
    useResolver(fake);
    process.env.OUTBOUND_DENY = '127.0.0.77';
    const lookup = policyLookup('test');
    const call = (host: string, all: boolean) => new Promise<[unknown, unknown, unknown]>((resolve) => {
      lookup(host, { all }, (err, addr, fam) => resolve([err, addr, fam]));
    });
    expect(await call('em.test', false)).toEqual([null, '127.0.0.1', 4]);
    expect(await call('em.test', true)).toEqual([null, table['em.test'], undefined]);
    const [err] = await call('alias.test', true);
    expect(err).toBeInstanceOf(OutboundRefused);
  });
});

describe('COORD_CLIENT_CERT_HOSTS matching', () => {
  test('host, host:port, origin and *.domain entries', () => {
    const u = (s: string) => new URL(s);
    expect(hostListAllows(u('https://em.example:8443/x'), ['em.example'])).toBe(true);
    expect(hostListAllows(u('https://em.example:8443/x'), ['em.example:9443'])).toBe(false);
    expect(hostListAllows(u('https://em.example/x'), ['https://em.example'])).toBe(true);
    expect(hostListAllows(u('https://em.example:8443/x'), ['https://em.example'])).toBe(false); // origin: port 443
    expect(hostListAllows(u('http://em.example/x'), ['https://em.example'])).toBe(false);
    expect(hostListAllows(u('https://a.em.example/'), ['*.em.example'])).toBe(true);
    expect(hostListAllows(u('https://em.example.evil.test/'), ['em.example'])).toBe(false);
    expect(hostListAllows(u('https://127.0.0.1:4000/'), ['127.0.0.1:4000'])).toBe(true);
    expect(hostListAllows(u('https://[::1]:4000/'), ['[::1]:4000'])).toBe(true);
    expect(hostListAllows(u('https://em.example/'), [])).toBe(false);
  });

  test('coordinationTargetProblem: what the API can refuse up front', () => {
    const cert = (endpoint: string, tokenEndpoint: string) => ({
      endpoint,
      authentication: { authType: ['OAUTH2_CLIENT_CERT' as const], paramsOauth2ClientCert: { clientId: 'c', certificateRef: { type: 'x5t#S256' as const, value: 'x' }, tokenEndpoint } },
    });
    delete process.env.COORD_CLIENT_CERT_HOSTS;
    expect(coordinationTargetProblem({ endpoint: 'http://169.254.169.254/' })).toMatch(/outbound policy refuses the coordination endpoint/);
    expect(coordinationTargetProblem({ endpoint: 'http://127.0.0.1:6789' })).toBeUndefined();
    expect(coordinationTargetProblem(cert('https://em.example', 'https://em.example/token'))).toMatch(/COORD_CLIENT_CERT_HOSTS is not set/);
    process.env.COORD_CLIENT_CERT_HOSTS = 'em.example';
    expect(coordinationTargetProblem(cert('https://em.example', 'https://em.example/token'))).toBeUndefined();
    expect(coordinationTargetProblem(cert('https://attacker.example', 'https://em.example/token'))).toMatch(/coordination endpoint https:\/\/attacker\.example: it is not in COORD_CLIENT_CERT_HOSTS/);
    expect(coordinationTargetProblem(cert('https://em.example', 'https://169.254.169.254/token'))).toMatch(/refuses the OAuth 2\.0 token endpoint/);
  });
});

describe('excerpt', () => {
  test('short, no control characters, secrets masked', () => {
    const secret = 'S3cr3t-Passw0rd';
    const text = `\u001b[31mlogin failed for admin:${secret}\r\n\u202eevil password=hunter22 "token": "abc123def" Authorization: Bearer eyJhbGciOi.x.y `
      + `see http://u:urlpass@host/ ${'x'.repeat(5000)}`;
    const e = excerpt(text, [secret]);
    expect(e.length).toBeLessThanOrEqual(200);
    expect(e).not.toMatch(/[\u0000-\u001f\u007f\u202e]/);
    for (const s of [secret, 'hunter22', 'abc123def', 'eyJhbGciOi', 'urlpass']) expect(e).not.toContain(s);
    expect(e).toContain('login failed for admin:****');
    expect(e.endsWith('…')).toBe(true);
  });

  test('a secret key anywhere: in a long word, inside another pair\'s value, in a quoted JSON key', () => {
    expect(excerpt(`${'password'.repeat(20)}=hunter22`)).not.toContain('hunter22');
    expect(excerpt('x=token=abc123def')).not.toContain('abc123def');
    expect(excerpt('{"db_password": "pw-value", "user": "admin"}')).toBe('{"db_password": "****", "user": "admin"}');
    expect(excerpt('X-Auth-Token: gAAAAAB-token-value')).toBe('X-Auth-Token: ****');
  });

  // security review 3, H-1: the key pattern was cubic, 3-8 s per 2 KiB body of these shapes. Held against
  // a plain body of the same size in the same run (a ratio, not a time): linear code costs about the same.
  test('hostile 2 KiB bodies cost about what a plain one does (no regex backtracking)', () => {
    const hostile = ['pass'.repeat(512), 'password'.repeat(256), `{"error":{"message":"${'token'.repeat(400)}"}}`, `'${'secret'.repeat(340)}`];
    const plain = 'the quick brown fox, jumps: over the lazy dog; '.repeat(44);
    const cost = (bodies: string[]) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < 5; i++) for (const b of bodies) excerpt(b);
      return Number(process.hrtime.bigint() - t0);
    };
    cost([plain]); // warm up
    const ratio = cost(hostile) / (cost(new Array(hostile.length).fill(plain)) || 1);
    expect(ratio).toBeLessThan(25);
  });
});

describe('SSH targets (security review 3, M-1): a VNFC address passes the same policy', () => {
  it('refuses what OUTBOUND_DENY names and the built-in denies, and lets the rest through', () => {
    const s = parseOutboundSettings({ OUTBOUND_DENY: '127.0.0.0/8' });
    expect(sshTargetProblem('127.0.0.1', s)).toMatch(/is in OUTBOUND_DENY \(127\.0\.0\.0\/8\)/);
    expect(sshTargetProblem('169.254.169.254', defaults)).toMatch(/refused by default/);
    expect(sshTargetProblem('10.0.0.5', s)).toBeUndefined();
    expect(sshTargetProblem('127.0.0.1', defaults)).toBeUndefined(); // the embedded cloud's machines are on loopback
  });
});
