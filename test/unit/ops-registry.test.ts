/** The operation registry and the worker's bundle agree: every operation's workflow type is a workflow the worker runs. */
import fs from 'node:fs';
import * as bundle from '../../worker/workflows';
import { LCM_OPERATIONS } from '../../model/lcm-operation';
import { VNF_LCM_OPERATIONS } from '../../ops/registry';
import { describeOperation } from '../../ops/vnflcm/summary';
import { OPERATION_WORKFLOWS_FILE, operationWorkflowsSource } from '../../scripts/generate-operation-workflows';

test('every VNF LCM operation has its own workflow type, exported by the worker bundle', () => {
  const types = LCM_OPERATIONS.map((op) => VNF_LCM_OPERATIONS[op].workflowType);
  expect(new Set(types).size).toBe(LCM_OPERATIONS.length);
  for (const t of types) expect(typeof (bundle as Record<string, unknown>)[t]).toBe('function');
  // the old shared type stays for operations started under it
  expect(typeof bundle.lcmOperation).toBe('function');
});

test("the bundle's export of every registered operation's workflow is generated from the registry (adding an operation: its folder, its registry line, npm run ops:workflows)", () => {
  const source = operationWorkflowsSource();
  expect(source).toContain("export { instantiate } from '../ops/vnflcm/instantiate/workflow';");
  expect(source).toContain("export { magnumNodegroupUpdate } from '../ops/magnum/nodegroup-update/workflow';");
  expect(fs.readFileSync(OPERATION_WORKFLOWS_FILE, 'utf8')).toBe(source);
});

test('summaries read as a sentence', () => {
  const s = VNF_LCM_OPERATIONS.HEAL.summary({ vnfInstanceId: 'v1', vnfInstanceName: 'edge', params: { vnfcInstanceId: ['a', 'b'], cause: 'disk' } });
  expect(s).toBe('Heal edge (v1): VNFC a, b (disk)');
  expect(VNF_LCM_OPERATIONS.SCALE.summary({ vnfInstanceId: 'v1', params: { type: 'SCALE_IN', aspectId: 'VDU1_scale', numberOfSteps: 2 } }))
    .toBe('Scale in VNF v1: aspect VDU1_scale by 2 steps');
  expect(VNF_LCM_OPERATIONS.TERMINATE.summary({ vnfInstanceId: 'v1', params: { terminationType: 'GRACEFUL', gracefulTerminationTimeout: 30 } }))
    .toBe('Terminate VNF v1 (GRACEFUL after 30 s)');
});

test("the Web UI's summary is one line of at most 200 characters, whatever the caller named the instance", () => {
  const op = { id: 'op1', vnfInstanceId: 'v1', projectId: 'p1', operation: 'INSTANTIATE' as const, operationParams: { flavourId: 'simple' } };
  const inst = { vnfInstanceName: `evil\n# heading\n${'x'.repeat(300)}`, vimId: 'vim1' };
  const { summary, details } = describeOperation(op, inst);
  expect(summary).not.toMatch(/\n/);
  expect(summary.length).toBeLessThanOrEqual(200);
  expect(summary).toMatch(/^Instantiate evil # heading x+/);
  expect(details).not.toContain('\n# heading');
});
