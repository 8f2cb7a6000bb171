/**
 * The simulator's machines over real SSH: a Nova server on `public` answers
 * SSH on its 127.20.x.y address with the accounts cloud-init would make from
 * its user_data (or adminPass); commands, SFTP uploads, Docker and the
 * registry behave plausibly and are recorded; command faults; a rebuild
 * gives a fresh host; delete closes the listener; a restart keeps the host key.
 */
import { newEd25519KeyPair } from '@nfv-orchestrator/lib/ssh-keys';
import { writeImageArchive } from '@nfv-orchestrator/vimsim/ssh/host/tar';
import { PUBLIC_NETWORK_ID, seedImageId } from '@nfv-orchestrator/vimsim/store/seed';
import { admin, CloudClient, startTestSim, tempDataDir, type TestSim } from '../support/vimsim-helpers';
import { freePort, sftpUpload, sha256, sshConnect, sshExec, type Connected } from '../support/vimsim-ssh-helpers';

const PASSWORD = 'S3cret-pw!';
const USER_DATA = `#cloud-config
password: ${PASSWORD}
chpasswd: { expire: False }
ssh_pwauth: True
`;
const MV = { 'X-OpenStack-Nova-API-Version': '2.96' };

/** Boots a server through Nova (user_data base64, as Nova takes it) and returns its id and public address once ACTIVE. */
async function boot(nova: CloudClient, name: string, opts: { userData?: string | null; adminPass?: string; image?: string } = {}): Promise<{ id: string; address: string }> {
  const userData = opts.userData === undefined ? USER_DATA : opts.userData;
  const res = await nova.call('compute', 'POST', '/servers', {
    server: {
      name, imageRef: seedImageId(opts.image ?? 'ubuntu-20.04'), flavorRef: '2', networks: [{ uuid: PUBLIC_NETWORK_ID }],
      ...(userData !== null ? { user_data: Buffer.from(userData).toString('base64') } : {}),
      ...(opts.adminPass ? { adminPass: opts.adminPass } : {}),
    },
  }, MV);
  if (res.status !== 202) throw new Error(`boot failed: ${res.status} ${JSON.stringify(res.body)}`);
  const server = (await nova.until('compute', `/servers/${res.body.server.id}`, (b) => b.server.status === 'ACTIVE', 10_000, MV)).server;
  return { id: server.id, address: server.addresses.public[0].addr };
}

async function serverAt(sim: TestSim, address: string): Promise<any> {
  const res = await admin(sim, 'GET', `/servers?address=${address}`);
  expect(res.status).toBe(200);
  expect(res.body).toHaveLength(1);
  return res.body[0];
}

describe('vimsim SSH', () => {
  let sim: TestSim;
  let nova: CloudClient;
  let port: number;
  const open: Connected[] = [];
  const connect = async (address: string, username = 'ubuntu', password = PASSWORD) => {
    const c = await sshConnect(address, port, username, { password });
    open.push(c);
    return c;
  };

  beforeAll(async () => {
    port = await freePort();
    sim = await startTestSim({ delayMs: 20, sshPort: port });
    nova = await CloudClient.connect(sim);
  });
  afterEach(async () => {
    await admin(sim, 'DELETE', '/ssh/faults');
    for (const c of open.splice(0)) c.client.end();
  });
  afterAll(async () => {
    await sim.close();
  });

  it('installs Docker, loads an uploaded image and runs a registry that answers /v2/', async () => {
    const { address } = await boot(nova, 'registry-vm');
    expect(address).toMatch(/^127\.20\.\d+\.\d+$/);
    const server = await serverAt(sim, address);
    expect(server).toMatchObject({ name: 'registry-vm', sshAddress: address, ssh: { port, listening: true } });

    const { client, fingerprint } = await connect(address);
    expect(fingerprint).toBe(server.ssh.hostKeyFingerprint);

    expect(await sshExec(client, 'docker ps')).toEqual({ code: 127, stdout: '', stderr: 'bash: docker: command not found\n' });
    const install = await sshExec(client, "sudo -S -p '' apt-get install -y docker-ce", { stdin: `${PASSWORD}\n` });
    expect(install.code).toBe(0);
    expect(install.stdout).toContain('Setting up docker-ce (');
    expect((await sshExec(client, 'systemctl is-active docker')).stdout).toBe('active\n');

    const image = writeImageArchive(['registry:2.8.3']);
    expect(await sftpUpload(client, '/tmp/registry.tar', image)).toBe(image.length);
    const sum = await sshExec(client, 'sha256sum /tmp/registry.tar');
    expect(sum.stdout).toBe(`${sha256(image)}  /tmp/registry.tar\n`);
    expect(await sshExec(client, 'sudo docker load -i /tmp/registry.tar')).toMatchObject({ code: 0, stdout: 'Loaded image: registry:2.8.3\n' });

    const run = await sshExec(client, 'sudo docker run -d -p 5000:5000 -v /private_registry:/var/lib/registry --restart=always --name private_registry registry:2.8.3');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    expect(await sshExec(client, 'curl -s http://localhost:5000/v2/')).toEqual({ code: 0, stdout: '{}', stderr: '' });
    expect((await sshExec(client, `curl -s http://${address}:5000/v2/_catalog`)).stdout).toBe('{"repositories":[]}');
    expect((await sshExec(client, "sudo docker inspect -f '{{.State.Running}}' private_registry")).stdout).toBe('true\n');
    // Without sudo the user is not in the docker group.
    expect((await sshExec(client, 'docker ps')).stderr).toContain('permission denied while trying to connect to the Docker daemon socket');
    expect(await sshExec(client, 'curl -sS http://localhost:5001/v2/')).toMatchObject({ code: 7, stderr: expect.stringContaining('Connection refused') });

    // Proxy files the drivers write, the way they write them.
    const conf = await sshExec(client, "sudo mkdir -p /etc/systemd/system/docker.service.d && printf '[Service]\\nEnvironment=\"HTTP_PROXY=http://u:proxy-pw@proxy:3128\"\\n' | sudo tee /etc/systemd/system/docker.service.d/http-proxy.conf >/dev/null");
    expect(conf.code).toBe(0);
    const restart = await sshExec(client, 'sudo systemctl restart docker');
    expect(restart.stderr).toContain("Run 'systemctl daemon-reload'");
    expect(await sshExec(client, 'sudo systemctl daemon-reload && sudo systemctl restart docker')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await sshExec(client, 'sudo docker info')).stdout).toContain('HTTP Proxy: http://u:proxy-pw@proxy:3128');
    expect((await sshExec(client, 'curl -sf http://localhost:5000/v2/')).stdout).toBe('{}'); // --restart=always survived the restart

    const host = (await admin(sim, 'GET', `/servers/${server.id}/host`)).body;
    expect(host.commands.map((c: any) => [c.command, c.exitCode])).toEqual(
      expect.arrayContaining([
        ['docker ps', 127],
        ["sudo -S -p '' apt-get install -y docker-ce", 0],
        ['sudo docker load -i /tmp/registry.tar', 0],
        ['curl -s http://localhost:5000/v2/', 0],
      ]),
    );
    expect(host.commands.every((c: any) => typeof c.at === 'string')).toBe(true);
    // What actually ran, sudo seen through.
    expect(host.programs).toEqual(expect.arrayContaining([expect.objectContaining({ argv: 'docker load -i /tmp/registry.tar', root: true, exitCode: 0 })]));
    expect(host.files).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/tmp/registry.tar', size: image.length, sha256: sha256(image), via: 'sftp' }),
        expect.objectContaining({ path: '/etc/systemd/system/docker.service.d/http-proxy.conf', via: 'shell' }),
      ]),
    );
    expect(host.containers).toEqual([expect.objectContaining({ name: 'private_registry', image: 'registry:2.8.3', state: 'running', ports: ['5000:5000/tcp'] })]);
    expect(host.packages.map((p: any) => p.name)).toEqual(expect.arrayContaining(['docker-ce', 'docker-ce-cli', 'containerd.io']));
    // The same host is found by address; no password anywhere in the view.
    expect((await admin(sim, 'GET', `/servers/${address}/host`)).body.serverId).toBe(server.id);
    expect(JSON.stringify(host)).not.toContain(PASSWORD);
    expect(JSON.stringify(host)).not.toContain('proxy-pw');
  });

  it('rejects a wrong password and an unknown user; accepts keys from ssh_authorized_keys', async () => {
    const key = newEd25519KeyPair();
    const { address } = await boot(nova, 'ssh-auth', { userData: `${USER_DATA}ssh_authorized_keys:\n  - ${key.public}\n` });
    await expect(sshConnect(address, port, 'ubuntu', { password: 'wrong' })).rejects.toMatchObject({ level: 'client-authentication' });
    await expect(sshConnect(address, port, 'root', { password: PASSWORD })).rejects.toMatchObject({ level: 'client-authentication' });
    const other = newEd25519KeyPair();
    await expect(sshConnect(address, port, 'ubuntu', { privateKey: other.private })).rejects.toMatchObject({ level: 'client-authentication' });
    const byKey = await sshConnect(address, port, 'ubuntu', { privateKey: key.private });
    open.push(byKey);
    expect((await sshExec(byKey.client, 'whoami')).stdout).toBe('ubuntu\n');
  });

  it('users from cloud-config: a sudoer that must give its password; sudo -S checks it', async () => {
    const userData = `#cloud-config
users:
  - default
  - name: operator
    plain_text_passwd: op-pass-1
    lock_passwd: false
    sudo: ALL=(ALL) ALL
    shell: /bin/bash
`;
    const { address } = await boot(nova, 'ssh-users', { userData });
    const { client } = await connect(address, 'operator', 'op-pass-1');
    expect(await sshExec(client, 'sudo whoami')).toMatchObject({ code: 1, stderr: expect.stringContaining('a terminal is required') });
    expect(await sshExec(client, "sudo -S -p '' whoami", { stdin: 'nope\n' })).toMatchObject({ code: 1, stderr: 'Sorry, try again.\nsudo: 1 incorrect password attempt\n' });
    // The password line is read by sudo, the command gets the rest of stdin.
    expect(await sshExec(client, "sudo -S -p '' tee /etc/motd", { stdin: 'op-pass-1\nhello\n' })).toEqual({ code: 0, stdout: 'hello\n', stderr: '' });
    // The image's default user keeps the simulator default password (no `password:` here).
    const ubuntu = await connect(address, 'ubuntu', 'ubuntu');
    expect((await sshExec(ubuntu.client, 'sudo cat /etc/motd')).stdout).toBe('hello\n');
    const server = await serverAt(sim, address);
    const view = JSON.stringify((await admin(sim, 'GET', `/servers/${server.id}/host`)).body);
    expect(view).not.toContain('op-pass-1');
  });

  it('faults: exit code and stderr, times, server filter, regex; hang until the client gives up; unknown commands', async () => {
    const { address } = await boot(nova, 'ssh-faults');
    const { client } = await connect(address);
    await sshExec(client, 'sudo apt-get install -y docker-ce && sudo docker pull registry:2');

    const fault = await admin(sim, 'POST', '/ssh/faults', { server: address, match: 'docker run', exitCode: 125, stderr: 'docker: Error response from daemon: simulated.' });
    expect(fault.status).toBe(201);
    expect(fault.body.id).toEqual(expect.any(String));
    expect(await sshExec(client, 'sudo docker run -d -p 5000:5000 --name r registry:2')).toEqual({ code: 125, stdout: '', stderr: 'docker: Error response from daemon: simulated.\n' });
    expect((await sshExec(client, 'sudo docker run -d -p 5000:5000 --name r registry:2')).code).toBe(0); // times: 1
    expect((await admin(sim, 'GET', '/ssh/faults')).body.faults[0]).toMatchObject({ used: 1, remaining: 0 });

    await admin(sim, 'POST', '/ssh/faults', { server: '127.20.255.254', match: 'whoami' });
    expect((await sshExec(client, 'whoami')).code).toBe(0); // another server's fault
    await admin(sim, 'POST', '/ssh/faults', { match: '/^systemctl (re)?start/', exitCode: 1, stderr: 'Job for docker.service failed.', times: 2 });
    expect(await sshExec(client, 'sudo systemctl restart docker')).toMatchObject({ code: 1, stderr: 'Job for docker.service failed.\n' });
    expect(await sshExec(client, 'sudo systemctl start docker')).toMatchObject({ code: 1 });
    expect((await sshExec(client, 'sudo systemctl start docker')).code).toBe(0);
    expect((await admin(sim, 'POST', '/ssh/faults', { match: '/[/' })).status).toBe(400);
    expect((await admin(sim, 'POST', '/ssh/faults', {})).status).toBe(400);

    await admin(sim, 'POST', '/ssh/faults', { match: 'curl', hang: true });
    const hung = await sshExec(client, 'curl -sf http://localhost:5000/v2/', { giveUpAfterMs: 300 });
    expect(hung.code).toBeNull();
    expect(await sshExec(client, 'frobnicate --now')).toEqual({ code: 127, stdout: '', stderr: 'bash: frobnicate: command not found\n' });

    const server = await serverAt(sim, address);
    const commands = (await admin(sim, 'GET', `/servers/${server.id}/host`)).body.commands;
    expect(commands.filter((c: any) => c.command.startsWith('sudo docker run')).map((c: any) => c.exitCode)).toEqual([125, 0]);
    expect(commands.find((c: any) => c.command.startsWith('curl'))).toMatchObject({ exitCode: null });
    expect(commands[commands.length - 1]).toMatchObject({ command: 'frobnicate --now', exitCode: 127 });
  });

  it('rebuild: the same server answers on the same address with a new host key and a fresh host; the old disk stays readable', async () => {
    const { id, address } = await boot(nova, 'ssh-rebuild');
    const before = await serverAt(sim, address);
    const first = await connect(address);
    await sshExec(first.client, 'touch /tmp/marker && sudo apt-get install -y docker-ce');
    const closed = new Promise<void>((resolve) => first.client.once('close', () => resolve()));

    const rebuild = await nova.call('compute', 'POST', `/servers/${id}/action`, { rebuild: { imageRef: seedImageId('ubuntu-22.04') } }, MV);
    expect(rebuild.status).toBe(202);
    await closed; // the disk is gone, and its sessions with it
    await nova.until('compute', `/servers/${id}`, (b) => b.server.status === 'ACTIVE', 10_000, MV);

    const after = await serverAt(sim, address);
    expect(after).toMatchObject({ id, generation: 1 });
    expect(after.ssh.hostKeyFingerprint).not.toBe(before.ssh.hostKeyFingerprint);
    const second = await connect(address);
    expect(second.fingerprint).toBe(after.ssh.hostKeyFingerprint);
    expect((await sshExec(second.client, 'test -f /tmp/marker')).code).toBe(1);
    expect((await sshExec(second.client, 'docker ps')).code).toBe(127);
    const fresh = (await admin(sim, 'GET', `/servers/${id}/host`)).body;
    expect(fresh.commands.map((c: any) => c.command)).toEqual(['test -f /tmp/marker', 'docker ps']);
    const old = (await admin(sim, 'GET', `/servers/${id}/host?generation=0`)).body;
    expect(old.commands[0].command).toBe('touch /tmp/marker && sudo apt-get install -y docker-ce');
  });

  it('adminPass sets the default user password when user_data does not', async () => {
    const { address } = await boot(nova, 'ssh-adminpass', { userData: null, adminPass: 'Adm1n-pass' });
    await expect(sshConnect(address, port, 'ubuntu', { password: 'ubuntu' })).rejects.toMatchObject({ level: 'client-authentication' });
    const c = await connect(address, 'ubuntu', 'Adm1n-pass');
    expect((await sshExec(c.client, 'whoami')).stdout).toBe('ubuntu\n');
  });

  it('stopped servers do not answer; started again they do, with the same host', async () => {
    const { id, address } = await boot(nova, 'ssh-stop');
    const c = await connect(address);
    await sshExec(c.client, 'touch /tmp/kept');
    await nova.call('compute', 'POST', `/servers/${id}/action`, { 'os-stop': null }, MV);
    await nova.until('compute', `/servers/${id}`, (b) => b.server.status === 'SHUTOFF', 10_000, MV);
    await expect(sshConnect(address, port, 'ubuntu', { password: PASSWORD })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await nova.call('compute', 'POST', `/servers/${id}/action`, { 'os-start': null }, MV);
    await nova.until('compute', `/servers/${id}`, (b) => b.server.status === 'ACTIVE', 10_000, MV);
    const again = await connect(address);
    expect((await sshExec(again.client, 'test -f /tmp/kept')).code).toBe(0); // same disk
  });

  it('deleting the server closes the listener at once', async () => {
    const { id, address } = await boot(nova, 'ssh-delete');
    const { client } = await connect(address);
    expect((await sshExec(client, 'hostname')).stdout).toBe('ssh-delete\n');
    expect((await nova.call('compute', 'DELETE', `/servers/${id}`, undefined, MV)).status).toBe(204);
    await expect(sshConnect(address, port, 'ubuntu', { password: PASSWORD })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await nova.until('compute', `/servers/${id}`, () => false);
    expect((await admin(sim, 'GET', `/servers?address=${address}`)).body).toEqual([]);
    await expect(sshConnect(address, port, 'ubuntu', { password: PASSWORD })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('vimsim SSH across a restart', () => {
  it('a persisted server answers again with the same host key and an empty history', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    let sim = await startTestSim({ dataDir, delayMs: 20, sshPort: port });
    try {
      const nova = await CloudClient.connect(sim);
      const { address } = await boot(nova, 'ssh-restart');
      const before = await serverAt(sim, address);
      const first = await sshConnect(address, port, 'ubuntu', { password: PASSWORD });
      await sshExec(first.client, 'echo hi > /tmp/x');
      first.client.end();
      await sim.close();
      await expect(sshConnect(address, port, 'ubuntu', { password: PASSWORD })).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      sim = await startTestSim({ dataDir, delayMs: 20, sshPort: port });
      const after = await serverAt(sim, address);
      expect(after.id).toBe(before.id);
      const second = await sshConnect(address, port, 'ubuntu', { password: PASSWORD });
      expect(second.fingerprint).toBe(before.ssh.hostKeyFingerprint);
      // The host's filesystem and history are in memory only.
      expect((await sshExec(second.client, 'cat /tmp/x')).code).toBe(1);
      second.client.end();
    } finally {
      await sim.close();
      require('node:fs').rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
