/**
 * Tacker's Kubernetes cluster package (BaseHOT with AutoScalingGroups of
 * template members) through the API on real Heat: scale out and in of the
 * worker group, where the VNFCs the scale_start hook is told about are exactly
 * the ones Heat removes, and heal of one group member.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { zipFiles } from '../../samples/build';
import { call, onboard, opIdFrom, waitOpState } from '../support/api';
import { scriptWritableFile } from '../support/scripts';
import { tackerSampleFiles } from '../support/vnfpkg-fixtures';

const HOOK = `#!/usr/bin/env node
let s = '';
process.stdin.on('data', (d) => (s += d)).on('end', () => {
  const d = JSON.parse(s);
  require('fs').appendFileSync(d.additionalParams.hook_log, JSON.stringify({ hook: d.hook, vnfcs: d.vnfcs.map((v) => v.id) }) + '\\n');
});
`;
const log = scriptWritableFile('asg-hooks-', 'hooks.jsonl');
const lastCall = (hook: string) => fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.hook === hook).pop();

let id: string;

/** The package under a fresh vnfdId, its Kubernetes Mgmt Driver (every Vnflcm hook) replaced by a script that logs what it is told. */
function packageZip(): { zip: Buffer; vnfdId: string } {
  const files = tackerSampleFiles('kubernetes_vnf_package');
  const vnfdId = crypto.randomUUID();
  for (const p of Object.keys(files).filter((f) => f.endsWith('.yaml'))) {
    files[p] = Buffer.from(files[p].toString().split('b1db0ce7-ebca-1fb7-95ed-4840d70a1163').join(vnfdId));
  }
  const df = 'Definitions/sample_kubernetes_df_simple.yaml';
  files[df] = Buffer.from(files[df].toString().replace(/file: Scripts\/kubernetes_mgmt\.py/, 'file: ../Scripts/hook.js'));
  files['Scripts/hook.js'] = Buffer.from(HOOK);
  return { zip: zipFiles(files), vnfdId };
}

const workers = async () => ((await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body.instantiatedVnfInfo.vnfcResourceInfo as any[])
  .filter((v) => v.vduId === 'workerNode');

async function run(task: string, body: unknown): Promise<any> {
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/${task}`, body);
  expect(r.status).toBe(202);
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 180_000);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  return op;
}

beforeAll(async () => {
  const { zip, vnfdId } = packageZip();
  const pkg = await onboard(zip);
  expect(pkg.onboardingFailureDetails).toBeUndefined();
  id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
  await run('instantiate', {
    flavourId: 'simple',
    extVirtualLinks: [{ id: 'net0', resourceId: 'public', extCps: [{ cpdId: 'masterNode_CP1' }, { cpdId: 'workerNode_CP2' }] }],
    additionalParams: { hook_log: log },
  });
}, 240_000);

test('scale in removes exactly the group members the scale_start hook was told about', async () => {
  expect(await workers()).toHaveLength(2);
  await run('scale', { type: 'SCALE_OUT', aspectId: 'worker_instance', numberOfSteps: 2 });
  const four = await workers();
  expect(four).toHaveLength(4);
  expect(four.every((v) => v.metadata.memberCreatedAt && v.metadata.groupStackId)).toBe(true);
  for (let step = 0; step < 2; step++) {
    const before = await workers();
    const op = await run('scale', { type: 'SCALE_IN', aspectId: 'worker_instance' });
    const told = lastCall('scale_start');
    expect(told.vnfcs).toHaveLength(1);
    const removed = op.resourceChanges.affectedVnfcs.filter((a: any) => a.changeType === 'REMOVED').map((a: any) => a.id);
    expect(removed).toEqual(told.vnfcs);
    const after = await workers();
    expect(after.map((v) => v.id).sort()).toEqual(before.map((v) => v.id).filter((v) => v !== told.vnfcs[0]).sort());
  }
}, 300_000);

test('heal of one group member replaces its server only', async () => {
  const before = await workers();
  const [target, other] = before;
  const op = await run('heal', { vnfcInstanceId: [target.id] });
  expect(op.resourceChanges.affectedVnfcs).toEqual([expect.objectContaining({ id: target.id, changeType: 'MODIFIED' })]);
  const after = await workers();
  expect(after.find((v) => v.id === target.id).computeResource.resourceId).not.toBe(target.computeResource.resourceId);
  expect(after.find((v) => v.id === other.id).computeResource.resourceId).toBe(other.computeResource.resourceId);
}, 240_000);

test('BlueGreen change_vnfpkg of a group-held VDU answers 422 naming it; nothing starts', async () => {
  const target = packageZip();
  expect((await onboard(target.zip)).onboardingFailureDetails).toBeUndefined();
  const body = (upgrade_type: string) => ({ vnfdId: target.vnfdId, additionalParams: { upgrade_type, vdu_params: [{ vdu_id: 'workerNode' }] } });
  const r = await call('POST', `/vnflcm/v2/vnf_instances/${id}/change_vnfpkg`, body('BlueGreen'), { Version: '2.0.0' });
  expect(r.status).toBe(422);
  expect(r.body.detail).toMatch(/vdu_params\[0\]\.vdu_id: VDU workerNode is an AutoScalingGroup/);
  // filtered in the store: the project's other op occs may fill more than a page
  const ops = (await call('GET', `/vnflcm/v2/vnf_lcm_op_occs?filter=(eq,vnfInstanceId,${id});(eq,operation,CHANGE_VNFPKG)`, undefined, { Version: '2.0.0' })).body as any[];
  expect(ops).toHaveLength(0);
}, 120_000);
