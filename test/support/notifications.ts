/** Helpers of the notification tests: the stock tackerclient as a project's user, a receiver's view, waits. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Em } from '../../em/server';
import { VENV } from '../../runtime/openstack/install';
import { readState } from '../harness/state';
import { eventually } from './api';
import type { TestUser } from './identity';

const run = promisify(execFile);
export const cliDir = fs.mkdtempSync(path.join(os.tmpdir(), 'subsc-cli-'));
// one per test file that imports this module (jest loads it again per file); gone with the file's tests
afterAll(() => fs.rmSync(cliDir, { recursive: true, force: true }));

/** `openstack <args>` as `user` (JSON output when `json`), through the real Keystone. */
export async function openstack(user: TestUser, args: string[], json = true): Promise<any> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: cliDir, PYTHONWARNINGS: 'ignore',
    OS_AUTH_URL: readState().keystoneUrl, OS_REGION_NAME: 'RegionOne', OS_USERNAME: user.name, OS_PASSWORD: user.password, OS_PROJECT_NAME: user.project,
    OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_IDENTITY_API_VERSION: '3',
  };
  try {
    const { stdout } = await run(path.join(VENV, 'bin', 'openstack'), [...args, ...(json ? ['-f', 'json'] : [])], { env, timeout: 120_000, cwd: cliDir });
    return json ? JSON.parse(stdout) : stdout;
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`openstack ${args.join(' ')}: ${err.stderr || err.stdout || err.message}`);
  }
}

/** A JSON file for the CLI. */
export function jsonFile(name: string, body: unknown): string {
  const f = path.join(cliDir, name);
  fs.writeFileSync(f, JSON.stringify(body));
  return f;
}

/** The notifications a receiver got for a subscription, every copy, in the order they arrived. */
export const received = (em: Em, subscriptionId: string) => em.notifications().filter((n) => n.body.subscriptionId === subscriptionId);

/** Received copies with duplicates (same id) dropped, as a receiver does. */
export function deduped(em: Em, subscriptionId: string): Record<string, any>[] {
  const seen = new Set<string>();
  return received(em, subscriptionId).map((n) => n.body).filter((b) => !seen.has(String(b.id)) && seen.add(String(b.id)));
}

/** A short line per notification: type, and status/state for op occ notifications. */
export const lineOf = (b: Record<string, any>) =>
  b.notificationType === 'VnfLcmOperationOccurrenceNotification' ? `${b.operation} ${b.notificationStatus} ${b.operationState}` : String(b.notificationType);

export async function waitLines(em: Em, subscriptionId: string, n: number, timeoutMs = 120_000): Promise<string[]> {
  return eventually(`${n} notification(s) for ${subscriptionId}`, async () => {
    const l = deduped(em, subscriptionId).map(lineOf);
    return l.length >= n ? l : undefined;
  }, timeoutMs, 300);
}
