/**
 * Seed 000 end to end: the Docker private registry VNF through the API on the
 * simulator, whose servers answer SSH on their loopback addresses. The
 * built-in driver installs the registry at instantiate_end and re-installs it
 * at heal_end on the healed VNFCs only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { zipFolder } from '../../samples/build';
import { readState } from '../harness/state';
import { addSshFault, call, clearFaults, onboard, opIdFrom, sim, stacksNamed, temporalClient, waitOpState } from '../support/api';
import { tackerSampleFiles, zipFiles } from '../support/vnfpkg-fixtures';
import { aptConfString, systemdEnvironment } from '../../mgmt/private-registry/config-quote';

const ROOT = path.resolve(__dirname, '../..');
const PARAMS = JSON.parse(fs.readFileSync(path.join(ROOT, 'samples/private_registry_param_file.json'), 'utf8'));
const SEED_VNFD = 'c1bb0ce7-ebca-4fa7-95ed-4840d70a118f';

interface Host { commands: { command: string; exitCode: number }[]; files: { path: string; size: number; sha256: string }[] }

async function hostOf(serverId: string): Promise<Host> {
  return sim<Host>('GET', `/sim/servers/${serverId}/host`);
}
async function instance(id: string): Promise<any> {
  return (await call('GET', `/vnflcm/v1/vnf_instances/${id}`)).body;
}
async function instantiate(vnfdId: string, params: unknown, want = 'COMPLETED'): Promise<{ id: string; op: any }> {
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId })).body.id;
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, params);
  expect(r.status).toBe(202);
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 120_000);
  expect(op.error?.detail ?? op.operationState).toBe(want);
  return { id, op };
}
const ran = (h: Host, re: RegExp) => h.commands.some((c) => re.test(c.command) && c.exitCode === 0);

let first: { id: string; op: any };

beforeAll(async () => {
  const pkg = await onboard(zipFolder(path.join(ROOT, 'samples/private_registry_vnf')));
  expect(pkg.onboardingFailureDetails).toBeUndefined();
  expect(pkg.vnfdId).toBe(SEED_VNFD);
  first = await instantiate(SEED_VNFD, PARAMS);
});

afterEach(async () => { await clearFaults(); });

test('instantiate with the seed\'s parameter file installs the registry over SSH with the proxy settings', async () => {
  const inst = await instance(first.id);
  expect(inst.vnfProductName).toBe('Sample Private registry VNF');
  const [vnfc] = inst.instantiatedVnfInfo.vnfcResourceInfo;
  expect(vnfc.vduId).toBe('PrivateRegistryVDU');
  const host = await hostOf(vnfc.computeResource.resourceId);
  expect(ran(host, /apt-get .*install -y .*docker-ce/)).toBe(true);
  expect(ran(host, /docker pull registry:latest/)).toBe(true);
  expect(ran(host, /docker run -d -p 5000:5000 -v \/private_registry:\/var\/lib\/registry --restart=always --name private_registry registry:latest/)).toBe(true);
  expect(ran(host, /curl -sf http:\/\/localhost:5000\/v2\//)).toBe(true);
  const files = host.files.map((f) => f.path);
  expect(files).toEqual(expect.arrayContaining(['/etc/apt/apt.conf.d/proxy.conf', '/etc/systemd/system/docker.service.d/https-proxy.conf']));
  expect(JSON.stringify(host)).not.toContain('"ubuntu"'); // the SSH password is never recorded
  // the password is masked everywhere the operator looks
  const shown = JSON.stringify(inst) + JSON.stringify(first.op);
  expect(shown).not.toMatch(/"ssh_password":"ubuntu"/);
  expect(shown).not.toContain('password1@');
});

test('the registry VM\'s address is readable through the API (seed 000 part 2 writes it into the cluster\'s parameter file)', async () => {
  const inst = await instance(first.id);
  const [vnfc] = inst.instantiatedVnfInfo.vnfcResourceInfo;
  const server = await sim<any>('GET', `/sim/servers/${vnfc.computeResource.resourceId}`);
  const cp = vnfc.vnfcCpInfo.find((c: any) => c.cpdId === PARAMS.additionalParams.private_registry_installation_param.ssh_cp_name);
  const [addr] = cp.cpProtocolInfo[0].ipOverEthernet.ipAddresses;
  expect(addr).toMatchObject({ type: 'IPV4', addresses: [server.sshAddress], isDynamic: true });
  // the same on the external CP, and every CP of the VNF has its address
  const ext = inst.instantiatedVnfInfo.extCpInfo.find((e: any) => e.associatedVnfcCpId === cp.id);
  expect(ext.cpProtocolInfo[0].ipOverEthernet.ipAddresses[0].addresses).toEqual([server.sshAddress]);
  for (const c of vnfc.vnfcCpInfo) expect([c.cpdId, c.cpProtocolInfo[0].ipOverEthernet?.ipAddresses?.[0]?.addresses?.length]).toEqual([c.cpdId, 1]);
});

test('image_path: the image file is uploaded by SFTP, verified and loaded', async () => {
  const params = structuredClone(PARAMS);
  params.additionalParams.private_registry_installation_param.image_path = 'Files/images/registry.tar';
  params.additionalParams.private_registry_installation_param.port_no = '5050';
  delete params.additionalParams.private_registry_installation_param.proxy;
  const { id } = await instantiate(SEED_VNFD, params);
  const host = await hostOf((await instance(id)).instantiatedVnfInfo.vnfcResourceInfo[0].computeResource.resourceId);
  const tar = fs.readFileSync(path.join(ROOT, 'samples/private_registry_vnf/Files/images/registry.tar'));
  // into a fresh private directory of this run (never a fixed /tmp name), verified, loaded, then removed
  const dir = host.commands.map((c) => /mkdir -m 700 -- '(\/tmp\/nfv-registry\.[0-9a-f]{16})'/.exec(c.command)?.[1]).filter(Boolean).pop();
  expect(dir).toBeDefined();
  expect(ran(host, new RegExp(`sha256sum -- '${dir}/registry\\.tar'`))).toBe(true);
  expect(ran(host, new RegExp(`docker load -i .*${dir}/registry\\.tar`))).toBe(true);
  expect(host.files.filter((f) => f.path.startsWith('/tmp/'))).toEqual([]);
  expect(tar.length).toBeGreaterThan(0);
  expect(ran(host, /-o '?\/tmp\/docker\.gpg/)).toBe(false);
  expect(ran(host, /docker pull/)).toBe(false);
  expect(ran(host, /-p 5050:5000/)).toBe(true);
  expect(host.files.map((f) => f.path)).not.toContain('/etc/apt/apt.conf.d/proxy.conf');
});

test('heal VNFC: new server, same vnfcInfo id, registry re-installed on the new server only', async () => {
  const before = (await instance(first.id)).instantiatedVnfInfo;
  const old = before.vnfcResourceInfo[0];
  const oldCommands = (await hostOf(old.computeResource.resourceId)).commands.length;
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${first.id}/heal`, { vnfcInstanceId: old.id });
  expect(r.status).toBe(202);
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 120_000);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const after = (await instance(first.id)).instantiatedVnfInfo;
  expect(after.vnfcResourceInfo[0].id).toBe(old.id);
  expect(after.vnfcInfo[0].id).toBe(before.vnfcInfo[0].id);
  expect(after.vnfcResourceInfo[0].computeResource.resourceId).not.toBe(old.computeResource.resourceId);
  const fresh = await hostOf(after.vnfcResourceInfo[0].computeResource.resourceId);
  expect(ran(fresh, /docker run -d -p 5000:5000/)).toBe(true);
  const gone = await sim<any>('GET', `/sim/servers/${old.computeResource.resourceId}/host`).catch(() => undefined);
  if (gone?.commands) expect(gone.commands.length).toBe(oldCommands); // nothing more ran on the old one
});

test('an injected failure in the docker step -> FAILED_TEMP naming that step -> retry completes', async () => {
  const inst = await instance(first.id);
  // any server: the heal replaces this VNFC's server, the driver then runs on the new one
  await addSshFault({ match: 'docker run', exitCode: 125, stderr: 'docker: Error response from daemon: port is already allocated.', times: 1 });
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${first.id}/heal`, { vnfcInstanceId: [inst.instantiatedVnfInfo.vnfcResourceInfo[0].id] });
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 120_000);
  expect(op.operationState).toBe('FAILED_TEMP');
  expect(op.error.detail).toMatch(/heal_end/);
  expect(op.error.detail).toMatch(/run the registry container/);
  expect(op.error.detail).toMatch(/port is already allocated/);
  expect(op.error.detail).not.toMatch(/ubuntu@|:ubuntu/);
  expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${op.id}/retry`)).status).toBe(202);
  const done = await waitOpState(op.id, ['COMPLETED', 'FAILED_TEMP'], 120_000);
  expect(done.error?.detail ?? done.operationState).toBe('COMPLETED');
  const host = await hostOf((await instance(first.id)).instantiatedVnfInfo.vnfcResourceInfo[0].computeResource.resourceId);
  expect(host.commands.filter((c) => /docker run -d/.test(c.command)).map((c) => c.exitCode)).toEqual([125, 0]);
});

test('heal whole: a new stack id, the registry installed again', async () => {
  const stacks = async () => (await stacksNamed(`vnf-${first.id}`)).filter((s) => s.status !== 'DELETE_COMPLETE');
  const [before] = await stacks();
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${first.id}/heal`, {});
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 120_000);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const [after] = await stacks();
  expect(after.id).not.toBe(before.id);
  const host = await hostOf((await instance(first.id)).instantiatedVnfInfo.vnfcResourceInfo[0].computeResource.resourceId);
  expect(ran(host, /docker run -d -p 5000:5000/)).toBe(true);
});

test('a bad parameter file is refused with 400 naming the field, and nothing is created', async () => {
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: SEED_VNFD })).body.id;
  const bad = structuredClone(PARAMS);
  delete bad.additionalParams.private_registry_installation_param.ssh_password;
  bad.additionalParams.private_registry_installation_param.port_no = 'http';
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, bad);
  expect(r.status).toBe(400);
  expect(r.body.detail).toContain('additionalParams.private_registry_installation_param.ssh_password');
  expect(r.body.detail).toContain('additionalParams.private_registry_installation_param.port_no');
  const missingImage = structuredClone(PARAMS);
  missingImage.additionalParams.private_registry_installation_param.image_path = 'Files/images/nope.tar';
  expect((await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, missingImage)).status).toBe(400);
  expect((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?vnfInstanceId=${id}`)).body).toEqual([]);
  expect(await stacksNamed(`vnf-${id}`)).toEqual([]);
});

test('proxy values that would add apt or systemd directives are refused with 400 naming the field', async () => {
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: SEED_VNFD })).body.id;
  const field = 'additionalParams.private_registry_installation_param.proxy';
  for (const [key, value] of [
    ['http_proxy', 'http://p";APT::Update::Pre-Invoke {"id>/tmp/x";};//'],
    ['https_proxy', 'http://p\nExecStartPre=/bin/touch /tmp/x'],
    ['http_proxy', 'http://proxy.example:3128 '],
    ['http_proxy', 'ftp://proxy.example:21'],
    ['no_proxy', 'localhost\nExecStartPre=/bin/touch /tmp/x'],
  ]) {
    const bad = structuredClone(PARAMS);
    bad.additionalParams.private_registry_installation_param.proxy[key] = value;
    const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, bad);
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain(`${field}.${key}`);
  }
  expect((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?vnfInstanceId=${id}`)).body).toEqual([]);
});

test('config writers quote proxy values for apt.conf and systemd, and refuse what no quoting makes safe', () => {
  expect(aptConfString('http://u:p@h:3128')).toBe('"http://u:p@h:3128"');
  expect(systemdEnvironment('HTTP_PROXY', 'http://u:p%40ss@h:3128')).toBe('Environment="HTTP_PROXY=http://u:p%%40ss@h:3128"');
  expect(() => aptConfString('http://p";APT::Update::Pre-Invoke {"id>/tmp/x";};//')).toThrow(/refused/);
  expect(() => systemdEnvironment('HTTPS_PROXY', 'http://p\nExecStartPre=/bin/touch /tmp/x')).toThrow(/refused/);
  expect(() => systemdEnvironment('X\nExecStartPre', 'http://p')).toThrow(/bad variable name/);
});

test('Tacker\'s own package (naming Scripts/private_registry_mgmt.py) instantiates unchanged through the driver mapping', async () => {
  const pkg = await onboard(zipFiles(tackerSampleFiles('private_registry_vnf_package')));
  expect(pkg.onboardingState).toBe('ONBOARDED');
  const { id } = await instantiate(pkg.vnfdId, PARAMS);
  const host = await hostOf((await instance(id)).instantiatedVnfInfo.vnfcResourceInfo[0].computeResource.resourceId);
  expect(ran(host, /docker run -d -p 5000:5000/)).toBe(true);
});

test('the SSH password appears nowhere: op occs, API output, logs, workflow history', async () => {
  const secret = 'ubuntu';
  const ops = (await call('GET', `/vnflcm/v1/vnf_lcm_op_occs?vnfInstanceId=${first.id}&all_fields`)).text;
  expect(ops).not.toMatch(/"ssh_password":"ubuntu"/);
  expect(ops).not.toContain('password1');
  expect((await call('GET', `/vnflcm/v1/vnf_instances/${first.id}`)).text).not.toMatch(/"ssh_password":"ubuntu"/);
  const client = await temporalClient();
  try {
    for (const op of JSON.parse(ops)) {
      const history = JSON.stringify(await client.workflow.getHandle(op.id).fetchHistory());
      expect(history).not.toMatch(/ssh_password\\?"\s*:\s*\\?"ubuntu/);
      expect(history).not.toContain('password1');
    }
  } finally {
    await client.connection.close();
  }
  for (const f of fs.readdirSync(readState().logDir)) {
    const text = fs.readFileSync(path.join(readState().logDir, f), 'utf8');
    expect(text).not.toMatch(/ssh_password\\?"\s*:\s*\\?"ubuntu/);
    expect(text).not.toContain('password1@');
  }
  expect(secret).toBe('ubuntu');
});
