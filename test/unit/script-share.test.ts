/** Each project's share of the scripts worker (security review 3, M-4). */
import { ProjectShare } from '../../mgmt/script-share';

const settled = async <T>(p: Promise<T>) => Promise.race([p.then(() => true, () => 'rejected'), new Promise((r) => setImmediate(() => r(false)))]);

test('a project runs at most its share; others start at once; a freed slot goes to the project\'s next job, in order', async () => {
  const share = new ProjectShare(2);
  const a1 = await share.acquire('A');
  const a2 = await share.acquire('A');
  const a3 = share.acquire('A');
  const a4 = share.acquire('A');
  expect(await settled(a3)).toBe(false);
  const b1 = await share.acquire('B'); // another project is not held up
  expect([share.runningFor('A'), share.runningFor('B')]).toEqual([2, 1]);
  a1();
  a1(); // twice is once
  expect(await settled(a3)).toBe(true);
  expect(await settled(a4)).toBe(false);
  a2();
  expect(await settled(a4)).toBe(true);
  (await a3)();
  (await a4)();
  b1();
  expect([share.runningFor('A'), share.runningFor('B')]).toEqual([0, 0]);
});

test('a job cancelled while it waits leaves the queue', async () => {
  const share = new ProjectShare(1);
  const first = await share.acquire('A');
  const ac = new AbortController();
  const cancelled = share.acquire('A', { signal: ac.signal });
  const next = share.acquire('A');
  ac.abort(new Error('FORCEFUL cancel'));
  await expect(cancelled).rejects.toThrow('FORCEFUL cancel');
  first();
  expect(await settled(next)).toBe(true);
  (await next)();
  expect(share.runningFor('A')).toBe(0);
});
