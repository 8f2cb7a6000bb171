/** jest globalTeardown: stops what globalSetup started (test/harness/setup.ts says when it started nothing). */
import fs from 'node:fs';
import path from 'node:path';
import { recordHistories } from '../replay/record';
import { readState } from './state';

export default async function teardown(): Promise<void> {
  if (process.env.HARNESS === 'off' || process.env.HARNESS === 'external') return;
  await stopHarness();
}

/** Stops every component of the harness this process started (including restarted workers). */
export async function stopHarness(): Promise<void> {
  // no state yet (stopped while starting): what did start is in the globals below
  const s = fs.existsSync(process.env.PRODUCT_STATE ?? '') ? readState() : undefined;
  if (!s) return stopServers(undefined);
  for (const pid of Object.values(s.pids)) {
    try { process.kill(pid, 'SIGTERM'); } catch { /* already gone */ }
  }
  await new Promise((r) => setTimeout(r, 1500));
  // the simulator stops its kube-apiservers and etcds (2-3 s each) before it exits: give it the time
  const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };
  for (let waited = 0; s.pids.vimsim && alive(s.pids.vimsim) && waited < 20_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
  for (const pid of Object.values(s.pids)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
  // RECORD_HISTORIES=<dir>: keep this run's workflow histories for the replay suite (test/replay/record.ts)
  if (process.env.RECORD_HISTORIES) {
    const written = await recordHistories(s.temporalAddress, path.resolve(process.env.RECORD_HISTORIES));
    console.log(`recorded ${written.length} new histories: ${written.join(', ')}`);
  }
  await stopServers(s.dataDir);
}

/** The dev server, the embedded cloud and PostgreSQL of this process's harness; then its data directory. */
async function stopServers(dataDir: string | undefined): Promise<void> {
  const cloud = (globalThis as Record<string, unknown>).__cloud as { stop(): Promise<void> } | undefined;
  await cloud?.stop();
  const temporal = (globalThis as Record<string, unknown>).__temporal as { stop(): Promise<void> } | undefined;
  await temporal?.stop();
  const postgres = (globalThis as Record<string, unknown>).__postgres as { stop(): void } | undefined;
  postgres?.stop();
  if (!dataDir) return;
  if (process.env.KEEP_TEST_DATA) console.log(`test data kept in ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
}
