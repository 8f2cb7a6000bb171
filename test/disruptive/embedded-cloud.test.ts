/**
 * The embedded cloud as an operator meets it: the stock `openstack` CLI
 * (python-openstackclient + python-heatclient from the project's venv) against
 * the embedded Keystone lists the catalog and the product's stacks; and a Heat
 * killed with -9 in the middle of a stack create is started again, fails what
 * it had in progress ("Engine went down ..."), and the product still completes
 * the operation with exactly one stack.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { VENV } from '../../runtime/openstack/install';
import { sampleVariant } from '../../samples/variant';
import { readState } from '../harness/state';
import { addFault, call, clearFaults, eventually, onboard, opIdFrom, stacksNamed, waitOpState } from '../support/api';

const run = promisify(execFile);

/** The stock CLI as the admin of the embedded Keystone (no OS_* of the caller's shell). */
async function openstack(...args: string[]): Promise<any> {
  // the password in the environment: a generated one may start with '-', which the CLI would take for an option
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONWARNINGS: 'ignore', OS_PASSWORD: readState().adminPassword };
  const { stdout } = await run(path.join(VENV, 'bin', 'openstack'), [
    '--os-auth-url', readState().keystoneUrl, '--os-username', 'admin', '--os-project-name', 'admin',
    '--os-user-domain-name', 'Default', '--os-project-domain-name', 'Default', '--os-identity-api-version', '3', ...args, '-f', 'json',
  ], { env, timeout: 60_000 });
  return JSON.parse(stdout);
}

let vnfdId: string;

async function instantiate(id: string): Promise<string> {
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  });
  expect(r.status).toBe(202);
  return opIdFrom(r);
}

const heatPid = () => Number(fs.readFileSync(path.join(readState().dataDir, 'openstack', 'heat.pid'), 'utf8'));

beforeAll(async () => {
  const variant = sampleVariant(path.resolve(__dirname, '../../samples/two_vdu_vnf'));
  vnfdId = variant.vnfdId;
  expect((await onboard(variant.zip)).onboardingState).toBe('ONBOARDED');
});
afterEach(() => clearFaults());

test('the stock openstack CLI sees the catalog and the product\'s stacks', async () => {
  const catalog: { Type: string }[] = await openstack('catalog', 'list');
  expect(catalog.map((c) => c.Type).sort()).toEqual(
    ['compute', 'container-infra', 'identity', 'image', 'load-balancer', 'network', 'nfv-orchestration', 'orchestration', 'volumev3'],
  );
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
  expect((await waitOpState(await instantiate(id), ['COMPLETED', 'FAILED_TEMP'], 120_000)).operationState).toBe('COMPLETED');
  const stacks: { 'Stack Name': string; 'Stack Status': string; ID: string }[] = await openstack('stack', 'list');
  const mine = stacks.filter((s) => s['Stack Name'] === `vnf-${id}`);
  expect(mine).toEqual([expect.objectContaining({ 'Stack Status': 'CREATE_COMPLETE' })]);
  const servers: { ID: string; Status: string }[] = await openstack('server', 'list');
  const info = (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body.instantiatedVnfInfo;
  for (const v of info.vnfcResourceInfo) {
    expect(servers).toContainEqual(expect.objectContaining({ ID: v.computeResource.resourceId, Status: 'ACTIVE' }));
  }
  expect((await waitOpState(opIdFrom(await call('POST', `/vnflcm/v1/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' })), ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
});

test('kill -9 of Heat mid-create: Heat comes back, and the instantiate completes with exactly one stack', async () => {
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
  await addFault({ target: 'server', operation: 'create', mode: 'hang' }); // one server stays BUILD
  const opId = await instantiate(id);
  await eventually('stack create in progress', async () => ((await stacksNamed(`vnf-${id}`))[0]?.status === 'CREATE_IN_PROGRESS' ? true : undefined), 60_000);
  const before = heatPid();
  process.kill(before, 'SIGKILL');
  // The cloud supervisor starts Heat again; Heat fails the interrupted create.
  const failed = await eventually('Heat back with the create failed', async () => {
    if (heatPid() === before) return undefined;
    const [s] = await stacksNamed(`vnf-${id}`);
    return s?.status === 'CREATE_FAILED' ? s : undefined;
  }, 90_000, 500);
  expect(failed.reason).toMatch(/Engine went down during stack CREATE/);
  await clearFaults();
  const op = await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], 180_000);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const live = (await stacksNamed(`vnf-${id}`)).filter((s) => s.status !== 'DELETE_COMPLETE');
  expect(live).toHaveLength(1);
  expect(live[0].id).toBe(failed.id); // driven on, not created twice
  expect(live[0].status).toBe('UPDATE_COMPLETE');
  const info = (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body.instantiatedVnfInfo;
  expect(info.vnfcResourceInfo.length).toBeGreaterThanOrEqual(2);
});
