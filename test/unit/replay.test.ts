/**
 * The replay suite: histories recorded from the end-to-end tests under
 * earlier workflow code (test/replay/histories, see test/replay/record.ts)
 * replay against today's workflow code. A change that would break an
 * operation running or parked across an upgrade fails here
 * (docs/versioning.md says how to change workflow code safely).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Resource } from '@opentelemetry/resources';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/worker';
import { Worker } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../worker/workflow-bundle';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { LCM_OPERATIONS } from '../../model/lcm-operation';
import { MAGNUM_CLUSTER_OPERATIONS, VNF_LCM_OPERATIONS } from '../../ops/registry';
import { KUBERNETES_HOOK_WORKFLOWS } from '../../mgmt/kubernetes/hook-workflows';

const DIR = path.join(__dirname, '../replay/histories');
/** One folder per build the histories were recorded under (its commit), so every build's histories stay. */
/** The operations there were while every one ran as the single lcmOperation type (fa1ef2b); later ones never did. */
const UNDER_ONE_TYPE: readonly string[] = ['INSTANTIATE', 'TERMINATE', 'HEAL', 'SCALE', 'CHANGE_VNFPKG'];
const files = fs.readdirSync(DIR, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json')).sort();

test('the committed histories cover every kind of operation and both parked states', () => {
  const names = files.map((f) => path.basename(f, '.json'));
  for (const op of LCM_OPERATIONS) {
    const type = VNF_LCM_OPERATIONS[op].workflowType;
    expect([type, names.some((n) => n === type || n.startsWith(`${type}-`))]).toEqual([type, true]);
    expect([type, names.some((n) => n === `${type}-parked-failed-temp`)]).toEqual([type, true]);
    // ... and under the one type every operation had before (operations parked across that upgrade), for those that existed then
    if (UNDER_ONE_TYPE.includes(op)) expect([op, names.some((n) => n.startsWith(`lcmOperation-${op}`))]).toEqual([op, true]);
  }
  for (const child of ['rollVnfc', 'rollingChunk', 'onboard']) expect(names.some((n) => n.startsWith(child))).toBe(true);
  // the cluster engine's workflows: the Kubernetes VNF's hook children, CA rotation, the health watch
  for (const type of [...Object.values(KUBERNETES_HOOK_WORKFLOWS), 'rotateClusterCa', 'clusterHealth']) {
    expect([type, names.some((n) => n === type || n.startsWith(`${type}-`))]).toEqual([type, true]);
  }
  // Magnum's operations, one workflow type each, the CADF delivery of events from before the outbox, and the outbox's delivery
  for (const type of [...Object.values(MAGNUM_CLUSTER_OPERATIONS).map((o) => o.workflowType), 'deliverCadfNotification', 'deliverNotifications']) {
    expect([type, names.some((n) => n === type || n.startsWith(`${type}-`))]).toEqual([type, true]);
  }
  expect(names.some((n) => n.endsWith('-parked-failed-temp'))).toBe(true);
  expect(names.some((n) => n.endsWith('-parked-coordination'))).toBe(true);
  expect(names.some((n) => n.endsWith('-parked-in-store'))).toBe(true);
});

/** Source folders of the workflow code (what the bundle holds). */
const WORKFLOW_CODE = ['engine', 'workflow-steps', 'ops', 'cluster/workflows', 'mgmt', 'worker'].map((d) => path.join(__dirname, '../..', d));
/** Patches no end-to-end path takes yet: their new branch is not recorded (a Heat engine restart mid-stack; a planning failure). */
const NOT_RECORDED = ['planning-failure-fails-temp', 'redrive-stack-after-heat-restart'];

/** Every patch id the workflow code guards a change with: patched('<id>') and localUnder('<id>'), directly or through a constant. */
function patchIds(): string[] {
  const text = WORKFLOW_CODE.flatMap((d) => fs.readdirSync(d, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => fs.readFileSync(path.join(d, f), 'utf8'))).join('\n');
  const ids = [...text.matchAll(/(?:patched|localUnder)\('([a-z0-9-]+)'/g)].map((m) => m[1]);
  for (const [, name] of text.matchAll(/(?:patched|localUnder)\(([A-Z][A-Z0-9_]*)/g)) {
    const value = new RegExp(`\\b${name}\\s*=\\s*'([a-z0-9-]+)'`).exec(text)?.[1];
    expect([name, value]).toEqual([name, expect.any(String)]);
    ids.push(value!);
  }
  return [...new Set(ids)].sort();
}

test('every patch of the workflow code has a committed history that took it (its new branch replays too)', () => {
  const names = files.map((f) => path.basename(f, '.json'));
  const ids = patchIds();
  expect(ids).toEqual(expect.arrayContaining(['auto-healing', 'control-plane-images', 'kubeadm-upgrade', ...NOT_RECORDED]));
  const missing = ids.filter((id) => !NOT_RECORDED.includes(id) && !names.some((n) => n.includes(`-${id}`)));
  expect(missing).toEqual([]);
  // and the paths the HA control planes added: a master's etcd member removed (VNF heal, Magnum resize), an auto-heal, an upgrade rolled back and one failed halfway
  for (const [type, feature] of [['kubernetesHealStart', 'etcd-member-removed'], ['magnumClusterResize', 'etcd-member-removed'], ['clusterHealth', 'auto-healing'], ['magnumClusterUpgrade', 'rollback'], ['magnumClusterUpgrade', 'failed']]) {
    expect([type, feature, names.some((n) => n.startsWith(`${type}-`) && n.includes(`-${feature}`))]).toEqual([type, feature, true]);
  }
});

test('every committed history replays against the current workflow code', async () => {
  const histories = files.map((f) => {
    const history = historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')));
    // the recorded id: child workflow ids are derived from it
    const workflowId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId;
    if (!workflowId) throw new Error(`${f}: no workflow id in its first event`);
    return { workflowId, history };
  });
  const failures: string[] = [];
  let replayed = 0;
  // under npm test, the very bundle every worker of the run loads (WORKFLOW_BUNDLE); alone, a bundle made here
  const code = process.env.WORKFLOW_BUNDLE
    ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE } }
    : { workflowsPath: require.resolve('../../worker/workflows'), interceptors: { workflowModules: WORKFLOW_INTERCEPTOR_MODULES } };
  // the OpenTelemetry workflow interceptors' sink, as the worker has it (spans of a replay go nowhere)
  const sinks = { exporter: makeWorkflowExporter(new NoopSpanProcessor(), new Resource({})) };
  for await (const r of Worker.runReplayHistories({ ...code, sinks }, histories)) {
    replayed++;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message.slice(0, 600)}`);
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(files.length);
}, 300_000);
