/**
 * Readiness as Kubernetes probes ask it (/readyz on the API and on each
 * worker): the store, Temporal and Keystone each checked at once, each
 * within a bound, so a probe never hangs on a dependency that does not
 * answer. Liveness (/healthz) asks nothing of them: a process whose
 * dependency is down is not restarted for it, only taken out of service.
 */
import type { Client } from '@temporalio/client';
import type { SqlStore } from '../store/sql-store';
import { request } from './openstack/http';

export interface ReadinessCheck {
  name: string;
  check(deadline: number): Promise<void>;
}

export interface Readiness {
  ready: boolean;
  /** By dependency: "ok", or why it is not. */
  checks: Record<string, string>;
}

/** Runs every check at once; a check not done within `timeoutMs` counts as failed. */
export async function readiness(checks: ReadinessCheck[], timeoutMs = 2000): Promise<Readiness> {
  const deadline = Date.now() + timeoutMs;
  const results = await Promise.all(checks.map(async (c) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs); });
    try {
      await Promise.race([c.check(deadline), late]);
      return [c.name, 'ok'] as const;
    } catch (e) {
      return [c.name, (e as Error).message.split('\n')[0].slice(0, 300)] as const;
    } finally {
      clearTimeout(timer);
    }
  }));
  return { ready: results.every(([, r]) => r === 'ok'), checks: Object.fromEntries(results) };
}

/**
 * What a probe answers, unauthenticated: 200 or 503, each dependency "ok" or
 * "unavailable" (its reason, which may name addresses, is logged instead).
 */
export interface ProbeAnswer { status: 200 | 503; body: { status: string; checks: Record<string, string> } }

export async function probeAnswer(checks: ReadinessCheck[], log: { warn(o: object, m: string): void }): Promise<ProbeAnswer> {
  const r = await readiness(checks);
  if (!r.ready) log.warn({ checks: r.checks }, 'not ready');
  const shown = Object.fromEntries(Object.entries(r.checks).map(([k, v]) => [k, v === 'ok' ? 'ok' : 'unavailable']));
  return { status: r.ready ? 200 : 503, body: { status: r.ready ? 'ready' : 'unready', checks: shown } };
}

/**
 * The probe as served: one readiness run is shared by every probe within
 * `ttlMs` of its start, so a flood of unauthenticated probes costs the
 * dependencies one check a second, not one per request.
 */
export function sharedProbe(checks: ReadinessCheck[], log: { warn(o: object, m: string): void }, ttlMs = 1000): () => Promise<ProbeAnswer> {
  let last: { at: number; answer: Promise<ProbeAnswer> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > ttlMs) last = { at: Date.now(), answer: probeAnswer(checks, log) };
    return last.answer;
  };
}

/** The store answers a query. */
export const storeCheck = (db: SqlStore): ReadinessCheck => ({
  name: 'store',
  check: () => db.read(async ({ db: q, t }) => { await q.select({ id: t.vims.id }).from(t.vims).limit(1); }),
});

/** Temporal's frontend answers (GetSystemInfo: any namespace, no workflow). */
export const temporalCheck = (client: Client): ReadinessCheck => ({
  name: 'temporal',
  check: (deadline) => client.connection.withDeadline(deadline, async () => { await client.workflowService.getSystemInfo({}); }),
});

/** Keystone answers its version document (any answer below 500: it is up and routing). */
export const keystoneCheck = (authUrl: string): ReadinessCheck => ({
  name: 'keystone',
  check: async (deadline) => {
    const r = await request('GET', authUrl, { timeoutMs: Math.max(deadline - Date.now(), 1), purpose: 'Keystone' });
    if (r.status >= 500) throw new Error(`Keystone answered ${r.status}`);
  },
});
