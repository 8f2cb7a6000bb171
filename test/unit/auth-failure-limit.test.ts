/** Failed authentications per client: a budget per window, then Retry-After until the window ends. */
import { AuthFailureLimiter } from '../../api/auth/failure-limit';

test('after the limit within a window a client waits for the window to end; other clients do not', () => {
  const l = new AuthFailureLimiter(3, 60_000);
  const t0 = 1_000_000;
  for (let i = 0; i < 2; i++) l.failed('a', t0 + i);
  expect(l.retryAfter('a', t0 + 10)).toBe(0);
  l.failed('a', t0 + 20);
  expect(l.retryAfter('a', t0 + 30)).toBe(60);
  expect(l.retryAfter('a', t0 + 45_000)).toBe(15);
  expect(l.retryAfter('b', t0 + 45_000)).toBe(0);
  expect(l.retryAfter('a', t0 + 60_000)).toBe(0); // a new window
  l.failed('a', t0 + 60_001);
  expect(l.retryAfter('a', t0 + 60_002)).toBe(0);
});

test('a flood of client addresses does not grow the table past its bound', () => {
  const l = new AuthFailureLimiter(1, 60_000, 100);
  for (let i = 0; i < 10_000; i++) l.failed(`10.0.${i >> 8}.${i & 255}`, 5);
  expect((l as unknown as { clients: Map<string, unknown> }).clients.size).toBe(100);
  expect(l.retryAfter('10.0.39.15', 6)).toBe(60); // the newest are kept
});
