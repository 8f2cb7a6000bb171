/**
 * An upgrade of the workflow code while operations are parked
 * (docs/versioning.md): one op waits in FAILED_TEMP, another in a 202
 * coordination wait, both under today's build. The worker is then replaced
 * by a build whose workflow code has one more step, guarded by patched(),
 * at the end of every VNF LCM operation. The operator's retry and the
 * EM's coordination result complete both on the new build: the added step
 * runs in each (its patch marker and its activity are in their histories)
 * and nothing fails with a nondeterminism error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startEm, type Em } from '../../em/server';
import { sampleVariant, twoVduVnfV2 } from '../../samples/variant';
import { addFault, call, clearFaults, eventually, onboard, opIdFrom, temporalClient, UNTIL_CLEARED, waitOpState } from '../support/api';
import { historyToText } from '../support/history-text';
import { killWorker, restartWorker } from '../support/worker-control';
import { withProductStore } from '../support/product-store';
import { waitsOfOp } from '../../store/repos/coordination-waits';

const ROOT = path.resolve(__dirname, '../..');
const SAMPLE = path.join(ROOT, 'samples/two_vdu_vnf');
const V2 = '/vnflcm/v2';
const H = { Version: '2.0.0' };
const PATCH = 'upgrade-test-added-step';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-upgrade-'));
let em: Em;
let oldVnfd: string;
let newVnfd: string;

/**
 * The next build: engine/etsi-op-occ.ts with one more step after the plan, only for operations that reach
 * it on the new code (patched). Built from a copy whose imports point back at the real tree.
 */
async function buildNextBundle(): Promise<string> {
  const src = fs.readFileSync(path.join(ROOT, 'engine/etsi-op-occ.ts'), 'utf8');
  const changed = src
    .replace(/from '\.\.\//g, `from '${ROOT}/`).replace(/from '\.\//g, `from '${ROOT}/engine/`)
    .replace("import { upsertSearchAttributes } from '@temporalio/workflow';", "import { patched, upsertSearchAttributes } from '@temporalio/workflow';\nimport { acts } from '" + ROOT + "/workflow-steps/activities';")
    .replace('const policy = etsiOpOccPolicy(input.opOccId);', `const policy = etsiOpOccPolicy(input.opOccId);
  const added = { name: 'check the stack (added by the upgrade)', run: async () => { if (patched('${PATCH}')) await acts.stackStatus({ vnfInstanceId: input.vnfInstanceId }); } };
  const original = plan;
  plan = Array.isArray(original) ? [...original, added] : async () => [...(await original()), added];`);
  if (!changed.includes(PATCH) || changed.includes("from '../")) throw new Error('engine/etsi-op-occ.ts changed shape: update this test');
  const next = path.join(tmp, 'etsi-op-occ.next.ts');
  fs.writeFileSync(next, changed);
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../worker/workflows'),
    webpackConfigHook: (config) => {
      const replace = (request: string) => /[\\/]engine[\\/]etsi-op-occ$/.test(request);
      // the copy lives outside the tree: its packages come from the project's node_modules
      config.resolve = { ...config.resolve, modules: [...(config.resolve?.modules ?? ['node_modules']), path.join(ROOT, 'node_modules')] };
      config.plugins = [...(config.plugins ?? []), {
        apply: (compiler: any) => compiler.hooks.normalModuleFactory.tap('next-build', (nmf: any) => {
          nmf.hooks.beforeResolve.tap('next-build', (data: any) => { if (replace(data.request)) data.request = next; });
        }),
      }];
      return config;
    },
  });
  if (!code.includes(PATCH)) throw new Error('the next build does not contain the added step');
  const out = path.join(tmp, 'next-bundle.js');
  fs.writeFileSync(out, code);
  return out;
}

async function instantiate(id: string): Promise<string> {
  const r = await call('POST', `${V2}/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }, H);
  expect(r.status).toBe(202);
  return opIdFrom(r);
}
const newInstance = async (vnfdId: string) => (await call('POST', `${V2}/vnf_instances`, { vnfdId }, H)).body.id as string;
const wait = (opId: string, states: string[]) => waitOpState(opId, states, 120_000, 'v2');

async function history(opId: string) {
  const client = await temporalClient();
  try {
    return await client.workflow.getHandle(opId).fetchHistory();
  } finally {
    await client.connection.close();
  }
}
/** The patch ids recorded in the history's markers (each marker's payloads decoded). */
const markers = (h: Awaited<ReturnType<typeof history>>) => (h.events ?? [])
  .filter((e) => e.markerRecordedEventAttributes)
  .map((e) => `${e.markerRecordedEventAttributes!.markerName}: ${historyToText({ events: [e] }).text}`);
const activities = (h: Awaited<ReturnType<typeof history>>) => (h.events ?? [])
  .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);

beforeAll(async () => {
  em = await startEm({});
  const v1 = sampleVariant(SAMPLE);
  const v2 = sampleVariant(SAMPLE, { editYaml: (_p, t) => twoVduVnfV2(t) });
  oldVnfd = v1.vnfdId;
  newVnfd = v2.vnfdId;
  await onboard(v1.zip);
  await onboard(v2.zip);
});
afterAll(async () => {
  em.close();
  await clearFaults();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('ops parked under one build complete on the next, which runs its patched step', async () => {
  const nextBundle = await buildNextBundle();

  // 1. Parked in FAILED_TEMP: the stack create fails until the operator fixes the cloud.
  await addFault({ target: 'server', operation: 'create', mode: 'fail', message: 'No valid host was found', times: UNTIL_CLEARED });
  const failing = await instantiate(await newInstance(oldVnfd));
  expect((await wait(failing, ['FAILED_TEMP', 'COMPLETED'])).operationState).toBe('FAILED_TEMP');
  await clearFaults();

  // 2. Parked in a 202 coordination wait: the EM decides only after the upgrade.
  const rolled = await newInstance(oldVnfd);
  expect((await wait(await instantiate(rolled), ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
  em.setBehaviour({ mode: 'async', result: 'CONTINUE', delayMs: 15_000, retryAfter: '2' });
  const param = (phase: string) => ({ cp_name: 'VDU1_CP1', username: 'ubuntu', password: 'vnfc-secret-pw', endpoint: em.url, timeout: 120, inputParams: { phase } });
  const r = await call('POST', `${V2}/vnf_instances/${rolled}/change_vnfpkg`, {
    vnfdId: newVnfd,
    additionalParams: { upgrade_type: 'RollingUpdate', vdu_params: [{ vdu_id: 'VDU1', old_vnfc_param: param('old'), new_vnfc_param: param('new') }] },
  }, H);
  expect(r.status).toBe(202);
  const changing = opIdFrom(r);
  await eventually('a coordination accepted and waiting', async () => (em.coordinations().some((c) => c.request.vnfLcmOpOccId === changing) ? true : undefined), 60_000);
  // and parked in the store with the EM's Location: killed before, while the wait is still claimed by its POST, the
  // wait would be taken over only when that claim runs out (150 s), after this test's waits
  await eventually('the wait parked with its Location', async () => ((await withProductStore((s) => waitsOfOp(s, changing))).some((w) => w.location) ? true : undefined), 60_000);

  // 3. The upgrade: the worker of today's build goes, the next build's worker comes.
  killWorker();
  restartWorker('worker', { WORKFLOW_BUNDLE: nextBundle });
  try {
    // 4. The operator's retry, and the EM's result, complete both on the next build.
    expect((await call('POST', `${V2}/vnf_lcm_op_occs/${failing}/retry`, undefined, H)).status).toBe(202);
    for (const opId of [failing, changing]) {
      const op = await wait(opId, ['COMPLETED', 'FAILED_TEMP']);
      expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
      const h = await history(opId);
      // the added step's patch marker, and its activity last, after the operation's own last step
      expect([markers(h).filter((m) => m.includes(PATCH)).length, activities(h).slice(-2)]).toEqual([1, ['recordVnfInfo', 'stackStatus']]);
    }
  } finally {
    killWorker();
    restartWorker(); // today's build again, for the rest of the run
  }
}, 600_000);
