/**
 * Setup of the `unit` tier (jest.config.js): a unit test starts no server and
 * no process of any kind. Listening on a socket or spawning a child fails the
 * test that tries, naming the tier a test that needs one belongs to
 * (docs/testing.md).
 */
import childProcess from 'node:child_process';
import net from 'node:net';

const refuse = (what: string) => (): never => {
  throw new Error(`a unit test may not ${what}: move the test to test/component (its own servers) or test/e2e (the shared harness)`);
};

net.Server.prototype.listen = refuse('listen on a socket') as typeof net.Server.prototype.listen;
for (const fn of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[fn] = refuse(`start a process (child_process.${fn})`);
}
