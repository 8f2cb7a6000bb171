/**
 * Mgmt Driver scripts from the package: run on the scripts worker with a JSON
 * document on stdin; scale_end sees only the added VNFCs, scale_start the
 * ones a scale-in removes; a non-zero exit fails the op with its stderr.
 */
import fs from 'node:fs';
import path from 'node:path';
import { zipFiles } from '../../samples/build';
import { sampleVariant } from '../../samples/variant';
import { call, onboard, opIdFrom, waitOpState } from '../support/api';
import { scriptWritableFile } from '../support/scripts';
import { withLcmHooks } from '../support/vnfpkg-fixtures';

const HOOK = `#!/usr/bin/env node
// Appends what the orchestrator handed this hook to additionalParams.hook_log.
let s = '';
process.stdin.on('data', (d) => (s += d)).on('end', () => {
  const d = JSON.parse(s);
  require('fs').appendFileSync(d.additionalParams.hook_log, JSON.stringify({ hook: d.hook, vnfcs: d.vnfcs.map((v) => v.id) }) + '\\n');
  if (d.additionalParams.fail_hook === d.hook) { console.error('hook refused: ' + d.additionalParams.secret_token); process.exit(3); }
});
`;

let vnfdId: string;
const log = scriptWritableFile('hooklog-', 'hooks.jsonl');
const entries = () => fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

beforeAll(async () => {
  const variant = sampleVariant(path.resolve(__dirname, '../../samples/two_vdu_vnf'));
  const files = variant.files;
  vnfdId = variant.vnfdId;
  const df = 'Definitions/two_vdu_vnf_df_simple.yaml';
  files[df] = Buffer.from(withLcmHooks(files[df].toString(), ['instantiate_end', 'scale_start', 'scale_end'], '../Scripts/hook.js'));
  files['Scripts/hook.js'] = Buffer.from(HOOK);
  const pkg = await onboard(zipFiles(files));
  expect(pkg.onboardingFailureDetails).toBeUndefined();
});

test('scale hooks see the right VNFCs; a failing script puts the op in FAILED_TEMP with its stderr', async () => {
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
  const body = {
    flavourId: 'simple',
    extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
    additionalParams: { hook_log: log, secret_token: 's3cr3t-t0ken' },
  };
  const inst = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, body);
  expect((await waitOpState(opIdFrom(inst), ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
  expect(entries()[0].hook).toBe('instantiate_end');
  expect(entries()[0].vnfcs).toHaveLength(2);

  const out = await call('POST', `/vnflcm/v1/vnf_instances/${id}/scale`, { type: 'SCALE_OUT', aspectId: 'VDU1_scale' });
  const outOp = await waitOpState(opIdFrom(out), ['COMPLETED', 'FAILED_TEMP']);
  expect(outOp.operationState).toBe('COMPLETED');
  const added = outOp.resourceChanges.affectedVnfcs.filter((a: any) => a.changeType === 'ADDED').map((a: any) => a.id);
  const [start, end] = entries().slice(1);
  expect(start).toEqual({ hook: 'scale_start', vnfcs: [] });
  expect(end).toEqual({ hook: 'scale_end', vnfcs: added });

  const inOp = await call('POST', `/vnflcm/v1/vnf_instances/${id}/scale`, { type: 'SCALE_IN', aspectId: 'VDU1_scale' });
  expect((await waitOpState(opIdFrom(inOp), ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
  expect(entries()[3]).toEqual({ hook: 'scale_start', vnfcs: added }); // the newest is removed
});

test('a hook script that exits non-zero fails the op with its stderr, secrets masked', async () => {
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple',
    extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
    additionalParams: { hook_log: log, fail_hook: 'instantiate_end', secret_token: 's3cr3t-t0ken' },
  });
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP']);
  expect(op.operationState).toBe('FAILED_TEMP');
  expect(op.error.detail).toMatch(/instantiate_end/);
  expect(op.error.detail).toMatch(/Scripts\/hook\.js exited 3: hook refused/);
  expect(op.error.detail).not.toContain('s3cr3t-t0ken');
});
