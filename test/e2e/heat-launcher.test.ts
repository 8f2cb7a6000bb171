/**
 * The embedded Heat's launcher (runtime/openstack/heat_all.py) mends what
 * Heat 27's threading engine gets wrong. Here: a finished engine thread must
 * leave its stack's ThreadGroup. Stock Heat keeps it until the stack is
 * deleted, with its request context, keystoneauth sessions and sockets (~13
 * descriptors per stack operation; the 1,000-parked benchmark's Heat ran out
 * of them after ~3,000). Runs the venv's Python on Heat's own classes: e2e
 * tier because the venv is installed there.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { venvBin } from '../../runtime/openstack/install';

const LAUNCHER_DIR = path.resolve(__dirname, '../../runtime/openstack');

/** Threads left in a Heat engine ThreadGroup after five that ended, with or without the launcher's mend. */
function threadsLeft(mended: boolean): number {
  const script = `
import sys, threading
sys.argv = ['heat_all']
import heat_all
if ${mended ? 'True' : 'False'}:
    heat_all.release_finished_threads()
from heat.engine import service
group = service.ThreadGroup()
started = [group.add_thread(lambda: None) for _ in range(5)]
for th in started:
    th.join(10)
print(len(group.threads))
`;
  const r = spawnSync(venvBin('python'), ['-c', script], { cwd: LAUNCHER_DIR, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`python exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return Number(r.stdout.trim().split('\n').pop());
}

test('stock Heat 27 keeps every ended engine thread in its group (the defect the launcher mends)', () => {
  expect(threadsLeft(false)).toBe(5);
});

test('with the launcher, an ended engine thread leaves its group', () => {
  expect(threadsLeft(true)).toBe(0);
});
