/**
 * The test environment of the component, e2e and disruptive tiers: jest's
 * node environment plus a check, after the file's last hook, that the file
 * left nothing running for the files after it. A leak fails the file that
 * leaked (after it is stopped, so the next file does not pay for it):
 * - a process the file started (a kube-apiserver, etcd, sshd, PostgreSQL, an
 *   extra worker or API) that is still alive; a product worker the file
 *   restarted in place of the harness's is the harness's again, not a leak;
 * - a fault the file injected into the harness's simulator (test/support/api.ts
 *   addFault records their ids);
 * - a cluster health loop still running that an operation of the file started
 *   (a Magnum cluster it created, or a VNF LCM operation it started, through
 *   the API: test/support/api.ts call() records their ids).
 * It reads only what the API and Temporal show: the environment is loaded
 * outside the test's module registry, so it imports none of the product.
 */
import fs from 'node:fs';
import { TestEnvironment } from 'jest-environment-node';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { Client, Connection } from '@temporalio/client';
import { OWNED, type Owned } from './owned';
import type { ProductState } from './state';

/** Live (not zombie) children of a process: pid -> command line. */
function childrenOf(ppid: number): Map<number, string> {
  const out = new Map<number, string>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(parent) !== ppid || state === 'Z') continue;
      out.set(Number(entry), fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim().slice(0, 160));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

function harnessState(): ProductState | undefined {
  const file = process.env.PRODUCT_STATE;
  if (!file || !fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ProductState;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export default class LeakCheckEnvironment extends TestEnvironment {
  private readonly testPath: string;
  private childrenBefore = new Set<number>();
  private startedAt = new Date();

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup(): Promise<void> {
    await super.setup();
    this.childrenBefore = new Set(childrenOf(process.pid).keys());
    this.startedAt = new Date();
    const owned: Owned = { faults: [], clusters: [], operations: [] };
    this.global[OWNED] = owned;
  }

  async teardown(): Promise<void> {
    const owned = this.global[OWNED] as Owned | undefined;
    let leaks: string[] = [];
    try {
      leaks = [...(await this.leftProcesses()), ...(await leftFaults(owned)), ...(await leftHealthLoops(owned, this.startedAt))];
    } finally {
      await super.teardown();
    }
    if (leaks.length) throw new Error(`${this.testPath} left behind (stopped now; clean it up in the file's afterAll):\n  ${leaks.join('\n  ')}`);
  }

  /** Processes this file started that still run, after a grace period for those already told to stop; killed. */
  private async leftProcesses(): Promise<string[]> {
    const product = new Set(Object.values(harnessState()?.pids ?? {}));
    const left = () => [...childrenOf(process.pid)].filter(([pid]) => !this.childrenBefore.has(pid) && !product.has(pid));
    for (let waited = 0; left().length && waited < 10_000; waited += 250) await sleep(250);
    return left().map(([pid, cmd]) => {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      return `process ${pid}: ${cmd}`;
    });
  }
}

/** A token of the embedded cloud's admin: the simulator's /sim answers nobody else. */
async function adminToken(s: ProductState): Promise<string> {
  const r = await fetch(`${s.keystoneUrl}/auth/tokens`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: {
      identity: { methods: ['password'], password: { user: { name: 'admin', domain: { id: 'default' }, password: s.adminPassword } } },
      scope: { project: { name: 'admin', domain: { id: 'default' } } },
    } }),
  });
  return r.headers.get('x-subject-token') ?? '';
}

/** Faults this file injected into the harness's simulator (cloud and SSH) that still act; all of its faults removed. */
async function leftFaults(owned: Owned | undefined): Promise<string[]> {
  const s = harnessState();
  if (!s || !owned?.faults.length) return [];
  const leaks: string[] = [];
  const headers = { 'x-auth-token': await adminToken(s) };
  for (const collection of ['/sim/faults', '/sim/ssh/faults']) {
    const r = await fetch(`${s.vimsimUrl}${collection}`, { headers });
    if (!r.ok) continue;
    const { faults } = (await r.json()) as { faults: { id: string; match?: string; mode?: string; hang?: boolean; times: number; used: number }[] };
    for (const f of faults.filter((x) => owned.faults.includes(`${collection}/${x.id}`))) {
      await fetch(`${s.vimsimUrl}${collection}/${f.id}`, { method: 'DELETE', headers });
      // a used-up fault is inert, unless it hangs: that holds what it hangs until the fault is removed
      if (f.used < f.times || f.mode === 'hang' || f.hang) leaks.push(`simulator fault ${collection}/${f.id}${f.match ? ` (match ${f.match})` : ''}`);
    }
  }
  return leaks;
}

/**
 * Health loops started since the file began by an operation of the file (the loop of Magnum cluster <uuid> is
 * cluster-health-<uuid>; a VNF's is started by its op occ's hook workflow, <opOccId>-<hook>); terminated.
 */
async function leftHealthLoops(owned: Owned | undefined, since: Date): Promise<string[]> {
  const s = harnessState();
  if (!s || !owned || (!owned.clusters.length && !owned.operations.length)) return [];
  const connection = await Connection.connect({ address: s.temporalAddress });
  try {
    const client = new Client({ connection });
    const query = `WorkflowType = 'clusterHealth' AND ExecutionStatus = 'Running' AND StartTime >= '${since.toISOString()}'`;
    const mine = async () => {
      const found: { workflowId: string; parent: string }[] = [];
      for await (const wf of client.workflow.list({ query })) {
        const parent = (await client.workflow.getHandle(wf.workflowId).describe()).parentExecution?.workflowId ?? '';
        const clusterId = wf.workflowId.replace(/^cluster-health-/, '');
        if (owned.clusters.includes(clusterId) || owned.operations.some((op) => parent.startsWith(op))) found.push({ workflowId: wf.workflowId, parent });
      }
      return found;
    };
    // a loop ends at its next check after its cluster went (CLUSTER_HEALTH_INTERVAL_S): give it a few
    let left = await mine();
    for (let waited = 0; left.length && waited < 15_000; waited += 1000) {
      await sleep(1000);
      left = await mine();
    }
    for (const { workflowId } of left) await client.workflow.getHandle(workflowId).terminate('left behind by a test file').catch(() => undefined);
    return left.map(({ workflowId, parent }) => `health loop ${workflowId} (started by ${parent || 'no parent'})`);
  } finally {
    await connection.close();
  }
}
