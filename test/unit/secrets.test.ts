/**
 * The key-name and URL safety net of common/secrets.ts: linear time on
 * hostile strings (H1), proxy-style URLs masked whole, the broadened key
 * names and whole arrays/objects under a secret key (M5).
 */
import { MASK, redact, redactString } from '../../common/secrets';

/** CPU milliseconds (not wall time: the machine is shared) of one call. */
function cpuMs(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const d = process.cpuUsage(before);
  return (d.user + d.system) / 1000;
}

describe('redactString is linear (no backtracking regex)', () => {
  // Sizes grow so that a quadratic implementation fails at the first, small step instead of running for hours.
  // [pattern, CPU ms allowed for 10 MB]; "a://" has 3.4 million URL starts and "http://a:b@" a million passwords to mask: more work per byte.
  // Three times what a quiet machine takes: one run under load took over 1,000 ms for "a.", and a quadratic
  // implementation needs many seconds already at 100 KB, so the margin costs the test nothing.
  const worst: [string, number][] = [['a.', 3000], ['http://a:', 3000], ['http://a', 3000], ['a://', 7500], ['http://a:b@', 9000]];
  for (const [unit, budgetMs] of worst) {
    test(`"${unit}" repeated to 10 MB: under ${budgetMs} ms of CPU`, () => {
      for (const size of [100_000, 1_000_000, 10_000_000]) {
        const s = unit.repeat(Math.ceil(size / unit.length));
        const ms = cpuMs(() => redactString(s));
        expect({ size, fast: ms < budgetMs }).toEqual({ size, fast: true });
      }
    });
  }
});

test('URL passwords are masked whole, proxy-style ones included', () => {
  expect(redactString('http://u:pa/ss@h:3128')).toBe(`http://u:${MASK}@h:3128`);
  expect(redactString('http://u:p@ss@h')).toBe(`http://u:${MASK}@h`);
  expect(redactString('proxy https://user2:password2@host2:port2 set')).toBe(`proxy https://user2:${MASK}@host2:port2 set`);
  expect(redactString('http://a:one@h1,https://b:two@h2')).toBe(`http://a:${MASK}@h1,https://b:${MASK}@h2`);
  expect(redactString('{"a":"http://u:secret1@h","b":"x@y"}')).toBe(`{"a":"http://u:${MASK}@h","b":"x@y"}`);
  // no credentials: unchanged
  for (const s of ['http://host:8080/path', 'http://user@host:1/', 'mailto:a@b', 'plain text', 'x://']) expect(redactString(s)).toBe(s);
});

test('secret key names are masked, a whole array or object under one too; deep values do not throw', () => {
  const out = redact({
    password: ['x1'], api_key: 'k1', apiKey: 'k2', ssh_key: 'k3', Authorization: 'Bearer t', cookie: 'c=1', sudo_password: 's',
    nested: { client_secret: { a: 1 }, private_key: ['-----BEGIN'] }, shown: 'http://u:p@ss@h', name: 'n',
  });
  expect(out).toEqual({
    password: MASK, api_key: MASK, apiKey: MASK, ssh_key: MASK, Authorization: MASK, cookie: MASK, sudo_password: MASK,
    nested: { client_secret: MASK, private_key: MASK }, shown: `http://u:${MASK}@h`, name: 'n',
  });
  let deep: Record<string, unknown> = {};
  const root = deep;
  for (let i = 0; i < 200_000; i++) { const next = {}; deep.a = next; deep = next; }
  expect(() => redact(root)).not.toThrow();
});
