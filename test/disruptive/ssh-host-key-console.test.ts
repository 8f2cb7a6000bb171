/**
 * A VNFC's first SSH host key is checked against the keys its server printed
 * on the console (cloud-init's SSH HOST KEY KEYS block, read with Nova's
 * os-getConsoleOutput), on the simulator's real SSH endpoints: the matching
 * key is pinned; a console showing another key fails the hook before any
 * password is sent; SSH_HOST_KEY_SOURCE=first-use still trusts the first key.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { newEd25519KeyPair } from '@nfv-orchestrator/lib/ssh-keys';
import { pinnedHostKey } from '../../store/repos/host-keys';
import { sampleVariant } from '../../samples/variant';
import { KeystoneSession } from '../../infra/openstack/keystone';
import { readState, writeState } from '../harness/state';
import { call, onboard, opIdFrom, sim, waitOpState } from '../support/api';
import { withProductStore } from '../support/product-store';
import { killWorker, restartWorker } from '../support/worker-control';

const ROOT = path.resolve(__dirname, '../..');
const PARAMS = JSON.parse(fs.readFileSync(path.join(ROOT, 'samples/private_registry_param_file.json'), 'utf8'));
let vnfdId: string;

/** Nova's os-getConsoleOutput as the admin user, straight over HTTP (independent of the product's client). */
async function consoleOutput(serverId: string, length?: number): Promise<{ status: number; output?: string }> {
  const session = new KeystoneSession({ authUrl: readState().keystoneUrl, username: 'admin', password: readState().adminPassword, project: 'admin', region: 'RegionOne' });
  const r = await fetch(`${await session.endpoint('compute')}/servers/${serverId}/action`, {
    method: 'POST',
    headers: { 'x-auth-token': (await session.getToken()).value, 'content-type': 'application/json' },
    body: JSON.stringify({ 'os-getConsoleOutput': length === undefined ? {} : { length } }),
  });
  const body = (await r.json().catch(() => ({}))) as { output?: string };
  return { status: r.status, output: body.output };
}
/** `SHA256:...` of each OpenSSH public key line in the console's host key block. */
const consoleFingerprints = (output: string) =>
  (/-----BEGIN SSH HOST KEY KEYS-----\n([\s\S]*?)-----END SSH HOST KEY KEYS-----/.exec(output)?.[1] ?? '').split('\n').filter(Boolean)
    .map((line) => `SHA256:${crypto.createHash('sha256').update(Buffer.from(line.split(' ')[1], 'base64')).digest('base64').replace(/=+$/, '')}`);
const vnfcOf = async (id: string) => (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body.instantiatedVnfInfo.vnfcResourceInfo[0];
const simServer = (serverId: string) => sim<any>('GET', `/sim/servers/${serverId}`);
const hostOf = (serverId: string) => sim<{ authAttempts: { method: string; accepted: boolean }[]; commands: unknown[] }>('GET', `/sim/servers/${serverId}/host`);

const pinned = (vnfcId: string) => withProductStore((store) => pinnedHostKey(store, vnfcId));

/** Restarts the product's worker with SSH_HOST_KEY_SOURCE set (undefined: as the harness started it). */
function workerWithPolicy(policy: string | undefined): void {
  const s = readState();
  if (policy === undefined) delete s.env.SSH_HOST_KEY_SOURCE;
  else s.env.SSH_HOST_KEY_SOURCE = policy;
  writeState(s);
  killWorker();
  restartWorker();
}

let instanceId: string;
let serverName: string;
let failedOp: string;

beforeAll(async () => {
  // a vnfdId of its own: test/disruptive/private-registry.test.ts onboards the seed package in the same project
  const pkg = await onboard(sampleVariant(path.join(ROOT, 'samples/private_registry_vnf')).zip);
  expect(pkg.onboardingState).toBe('ONBOARDED');
  vnfdId = pkg.vnfdId;
});
afterAll(async () => {
  if (serverName) await sim('DELETE', `/sim/servers/${encodeURIComponent(serverName)}/console-host-keys`);
  if (readState().env.SSH_HOST_KEY_SOURCE !== undefined) workerWithPolicy(undefined);
});

test('the simulator prints the server\'s host key on its console; the product checks the first key against it and pins it', async () => {
  instanceId = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${instanceId}/instantiate`, PARAMS);
  expect(r.status).toBe(202);
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 120_000);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const vnfc = await vnfcOf(instanceId);
  const serverId = vnfc.computeResource.resourceId;
  const server = await simServer(serverId);
  serverName = server.name;

  // Nova's console: boot lines, then cloud-init's block with the server's real key
  const full = await consoleOutput(serverId);
  expect(full.status).toBe(200);
  const output = full.output!;
  expect(output).toMatch(/Linux version/);
  expect(output).toMatch(/-----BEGIN SSH HOST KEY KEYS-----\nssh-ed25519 AAAA[A-Za-z0-9+/=]+ root@\S+\n-----END SSH HOST KEY KEYS-----\n$/);
  expect(consoleFingerprints(output)).toEqual([server.ssh.hostKeyFingerprint]);
  // length: the last N lines
  expect((await consoleOutput(serverId, 3)).output!.trim().split('\n')).toEqual(output.trim().split('\n').slice(-3));
  expect((await consoleOutput('00000000-0000-4000-8000-000000000000')).status).toBe(404);

  // the driver connected (it installed the registry) and pinned exactly that key
  expect(await pinned(vnfc.id)).toBe(server.ssh.hostKeyFingerprint);
  expect((await hostOf(serverId)).authAttempts.some((a) => a.method === 'password' && a.accepted)).toBe(true);
});

test('a console showing another key: the heal\'s hook fails naming the VNFC and both fingerprints; no password reaches the server', async () => {
  const other = newEd25519KeyPair().public; // "ssh-ed25519 AAAA... " line
  const [otherFp] = consoleFingerprints(`-----BEGIN SSH HOST KEY KEYS-----\n${other.trim()} root@x\n-----END SSH HOST KEY KEYS-----`);
  // by name: the server the heal creates prints the wrong key
  await sim('PUT', `/sim/servers/${encodeURIComponent(serverName)}/console-host-keys`, { keys: [`${other.trim()} root@${serverName}`] });
  const old = await vnfcOf(instanceId);
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${instanceId}/heal`, { vnfcInstanceId: [old.id] });
  expect(r.status).toBe(202);
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 120_000);
  failedOp = op.id;
  expect(op.operationState).toBe('FAILED_TEMP');
  const vnfc = await vnfcOf(instanceId);
  const serverId = vnfc.computeResource.resourceId;
  expect(serverId).not.toBe(old.computeResource.resourceId);
  const real = (await simServer(serverId)).ssh.hostKeyFingerprint;
  expect(op.error.detail).toMatch(/heal_end/);
  expect(op.error.detail).toContain(`host key mismatch for VNFC ${vnfc.id}`);
  expect(op.error.detail).toContain(`offered ${real}`);
  expect(op.error.detail).toContain(`expected one of ${otherFp}`);
  expect(op.error.detail).toMatch(/no credentials were sent/);
  expect(await pinned(vnfc.id)).toBeUndefined();
  // refused in the key exchange: the endpoint never saw an authentication request, so no password and no command
  const host = await hostOf(serverId);
  expect(host.authAttempts).toEqual([]);
  expect(host.commands).toEqual([]);
});

test('a console without host keys: the retry waits out the connect deadline, then fails saying the image must print them', async () => {
  await sim('PUT', `/sim/servers/${encodeURIComponent(serverName)}/console-host-keys`, { keys: [] });
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${failedOp}/retry`)).status).toBe(202);
  const op = await waitOpState(failedOp, ['COMPLETED', 'FAILED_TEMP'], 150_000);
  expect(op.operationState).toBe('FAILED_TEMP');
  const vnfc = await vnfcOf(instanceId);
  expect(op.error.detail).toContain(`cannot verify the SSH host key of VNFC ${vnfc.id}`);
  expect(op.error.detail).toMatch(/the image must print its host keys .*SSH_HOST_KEY_SOURCE/);
  expect((await hostOf(vnfc.computeResource.resourceId)).authAttempts).toEqual([]);
}, 180_000);

test('SSH_HOST_KEY_SOURCE=first-use: the retry trusts the first key as before and pins it', async () => {
  expect(failedOp).toBeDefined();
  workerWithPolicy('first-use');
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${failedOp}/retry`)).status).toBe(202);
  const done = await waitOpState(failedOp, ['COMPLETED', 'FAILED_TEMP'], 120_000);
  expect(done.error?.detail ?? done.operationState).toBe('COMPLETED');
  const vnfc = await vnfcOf(instanceId);
  const serverId = vnfc.computeResource.resourceId;
  expect(await pinned(vnfc.id)).toBe((await simServer(serverId)).ssh.hostKeyFingerprint);
  expect((await hostOf(serverId)).authAttempts.some((a) => a.method === 'password' && a.accepted)).toBe(true);
});
