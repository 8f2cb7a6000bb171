/**
 * The check every component, e2e and disruptive file runs after its last hook
 * (test/harness/leak-check-environment.ts): a process the file started and
 * left running fails the file, and is stopped; one the file stopped is fine.
 */
import { spawn } from 'node:child_process';
import LeakCheckEnvironment from '../harness/leak-check-environment';

const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

async function environment(): Promise<LeakCheckEnvironment> {
  const config = { globalConfig: {}, projectConfig: { testEnvironmentOptions: {}, setupFiles: [], fakeTimers: {} } } as never;
  const env = new LeakCheckEnvironment(config, { testPath: '/test/component/leaky.test.ts', console, docblockPragmas: {} } as never);
  await env.setup();
  return env;
}

test('a process left running fails the file, naming it, and is killed', async () => {
  const env = await environment();
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  await expect(env.teardown()).rejects.toThrow(/leaky\.test\.ts left behind[\s\S]*process \d+: sleep 600/);
  await new Promise((r) => setTimeout(r, 200));
  expect(alive(child.pid!)).toBe(false);
}, 30_000);

test('a process the file stopped is no leak', async () => {
  const env = await environment();
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  child.kill('SIGTERM');
  await expect(env.teardown()).resolves.toBeUndefined();
}, 30_000);
