/**
 * The simulator as a process (vimsim/main.ts) killed with SIGKILL mid-way:
 * on restart every record is there, a server that was BUILD goes on to
 * ACTIVE, one being deleted goes away, an ACTIVE one answers SSH again with
 * the same host key (a fresh host: history is in memory only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PUBLIC_NETWORK_ID, seedImageId } from '@nfv-orchestrator/vimsim/store/seed';
import { freePort } from '../harness/ports';
import { admin, CloudClient, embeddedCloud, ensureServiceUser, http, tempDataDir } from '../support/vimsim-helpers';
import { sshConnect, sshExec } from '../support/vimsim-ssh-helpers';

const MV = { 'X-OpenStack-Nova-API-Version': '2.96' };

describe('vimsim restart (kill -9)', () => {
  const dataDir = tempDataDir();
  let proc: ChildProcess | undefined;
  let url: string;
  let sshPort: number;
  let env: NodeJS.ProcessEnv;

  const start = async (delayMs: number) => {
    proc = spawn(process.execPath, ['--import', 'tsx', require.resolve('@nfv-orchestrator/vimsim/main.ts')], {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...env, VIMSIM_DELAY_MS: String(delayMs) },
      stdio: ['ignore', 'ignore', fs.openSync(path.join(dataDir, 'vimsim.log'), 'a')],
    });
    for (let i = 0; i < 300; i++) {
      if ((await fetch(`${url}/healthz`).catch(() => undefined))?.ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the simulator did not start');
  };
  const kill9 = async () => {
    const exited = new Promise((r) => proc!.once('exit', r));
    proc!.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    const auth = await ensureServiceUser(embeddedCloud());
    const port = await freePort();
    sshPort = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = {
      ...process.env,
      DATA_DIR: dataDir, VIMSIM_PORT: String(port), VIMSIM_SSH_PORT: String(sshPort), VIMSIM_LOG_LEVEL: 'info',
      VIMSIM_AUTH_URL: auth.authUrl, VIMSIM_SERVICE_USER: auth.username, VIMSIM_SERVICE_PASSWORD: auth.password, VIMSIM_SERVICE_PROJECT: 'service',
    };
  });
  afterAll(async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) await kill9();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every record and resumes what was in progress', async () => {
    await start(100);
    const cloud = await CloudClient.connect({ url });
    const nova = (method: string, p: string, body?: unknown) => cloud.call('compute', method, p, body, MV);
    const boot = async (name: string) => (await nova('POST', '/servers', { server: { name, imageRef: seedImageId('ubuntu-20.04'), flavorRef: '1', networks: [{ uuid: PUBLIC_NETWORK_ID }] } })).body.server.id as string;
    const status = async (id: string) => (await nova('GET', `/servers/${id}`)).body.server?.status;

    const pub = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl restart@vimsim';
    expect((await nova('POST', '/os-keypairs', { keypair: { name: 'kept', public_key: pub } })).status).toBe(201);
    const net = (await cloud.call('network', 'POST', '/networks', { network: { name: 'kept-net' } })).body.network;
    const subnet = (await cloud.call('network', 'POST', '/subnets', { subnet: { network_id: net.id, cidr: '10.50.0.0/24', ip_version: 4 } })).body.subnet;
    const port = (await cloud.call('network', 'POST', '/ports', { port: { network_id: net.id, fixed_ips: [{ ip_address: '10.50.0.9' }] } })).body.port;
    const image = (await cloud.call('image', 'POST', '/images', { name: 'kept-image', disk_format: 'raw', container_format: 'bare' })).body;
    const volume = (await cloud.call('volume', 'POST', '/volumes', { volume: { size: 1, name: 'kept-vol' } })).body.volume;
    const running = await boot('running');
    const doomed = await boot('doomed');
    await cloud.until('compute', `/servers/${doomed}`, (b) => b.server.status === 'ACTIVE');
    await cloud.until('compute', `/servers/${running}`, (b) => b.server.status === 'ACTIVE');
    await cloud.until('volume', `/volumes/${volume.id}`, (b) => b.volume.status === 'available');
    const before = (await admin({ url }, 'GET', `/servers/${running}`)).body;
    expect(before.ssh.listening).toBe(true);

    await admin({ url }, 'POST', '/config', { delayMs: 3000 });
    const building = await boot('building');
    await nova('DELETE', `/servers/${doomed}`);
    expect(await status(building)).toBe('BUILD');
    expect((await nova('GET', `/servers/${doomed}`)).body.server['OS-EXT-STS:task_state']).toBe('deleting');
    await kill9();

    await start(100);
    const again = await CloudClient.connect({ url });
    const nova2 = (method: string, p: string) => again.call('compute', method, p, undefined, MV);
    expect((await nova2('GET', '/os-keypairs/kept')).body.keypair.public_key).toBe(pub);
    expect((await again.call('network', 'GET', `/networks/${net.id}`)).body.network.subnets).toEqual([subnet.id]);
    expect((await again.call('network', 'GET', `/ports/${port.id}`)).body.port.fixed_ips).toEqual([{ subnet_id: subnet.id, ip_address: '10.50.0.9' }]);
    expect((await again.call('image', 'GET', `/images/${image.id}`)).body.name).toBe('kept-image');
    expect((await again.call('volume', 'GET', `/volumes/${volume.id}`)).body.volume.status).toBe('available');
    expect((await nova2('GET', `/servers/${running}`)).body.server.status).toBe('ACTIVE');
    await again.until('compute', `/servers/${building}`, (b) => b.server.status === 'ACTIVE', 15_000);
    expect(await again.until('compute', `/servers/${doomed}`, () => false, 15_000)).toBeUndefined();

    const after = (await admin({ url }, 'GET', `/servers/${running}`)).body;
    expect(after.ssh).toMatchObject({ listening: true, hostKeyFingerprint: before.ssh.hostKeyFingerprint });
    const ssh = await sshConnect(after.sshAddress, sshPort, 'ubuntu', { password: 'ubuntu' });
    expect(ssh.fingerprint).toBe(before.ssh.hostKeyFingerprint);
    expect((await sshExec(ssh.client, 'hostname')).stdout).toBe('running\n');
    ssh.client.end();
    expect((await http('GET', `${url}/healthz`)).status).toBe(200);
  }, 90_000);
});
