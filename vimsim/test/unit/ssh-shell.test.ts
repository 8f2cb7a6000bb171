/**
 * The simulated host without SSH: the shell subset, sudo policies, apt,
 * systemd, Docker and the registry between two hosts, redaction of the
 * command record. Commands run exactly as an exec request would run them.
 */
import pino from 'pino';
import { SshFaults } from '../../ssh/faults';
import type { AccountSpec } from '../../ssh/host/accounts';
import type { SimHost } from '../../ssh/host/host';
import { bootHost } from '../../ssh/host/boot';
import { execOnHost } from '../../ssh/shell/shell';
import { writeImageArchive } from '../../ssh/host/tar';
import { bootConfig } from '../../ssh/credentials';
import { BufferInput, BufferOutput } from '../../ssh/shell/io';

const ACCOUNTS: AccountSpec[] = [
  { name: 'ubuntu', password: 'ubuntu-pw', sudo: 'nopasswd' },
  { name: 'op', password: 'op-secret', sudo: 'password' },
];

function network() {
  const hosts = new Map<string, SimHost>();
  const faults = new SshFaults();
  const add = (address: string, name: string) => {
    const host = bootHost(`id-${name}`, address, name, ACCOUNTS, {
      takeFault: (h, c) => faults.take(h, c),
      resolve: (a) => hosts.get(a),
      log: pino({ level: 'silent' }),
    });
    hosts.set(address, host);
    return host;
  };
  return { add, faults };
}

async function run(host: SimHost, command: string, opts: { user?: string; stdin?: string } = {}) {
  const stdout = new BufferOutput();
  const stderr = new BufferOutput();
  const session = { closed: new Promise<void>(() => {}), isClosed: () => false, tty: false, sudoAuthenticated: false, env: {} };
  const code = await execOnHost(host, command, host.accounts.get(opts.user ?? 'ubuntu')!, session, { stdin: new BufferInput(opts.stdin ?? ''), stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const out = async (host: SimHost, command: string) => (await run(host, command)).stdout;

describe('simulated host: shell', () => {
  const host = network().add('127.20.0.10', 'vm-a');

  it('lists, pipelines, redirections, expansions', async () => {
    expect(await out(host, 'echo one; false || echo two && echo three; true && false || echo four')).toBe('one\ntwo\nthree\nfour\n');
    expect(await out(host, "printf 'b\\na\\nb\\n' | sort | uniq -c | awk '{print $2, $1}'")).toBe('a 1\nb 2\n');
    expect(await run(host, 'echo x > /tmp/f && echo y >> /tmp/f && cat /tmp/f | wc -l')).toMatchObject({ code: 0, stdout: '2\n' });
    expect(await out(host, 'echo $(echo nested $(whoami)) `hostname` ${UNSET:-fallback} "$HOME" \'$HOME\' ~')).toBe('nested ubuntu vm-a fallback /home/ubuntu $HOME /home/ubuntu\n');
    expect(await out(host, 'X=1; Y="a b"; set -- ignored; echo "$X" $Y; . /etc/os-release && echo $VERSION_CODENAME')).toBe('1 a b\nfocal\n');
    expect(await out(host, 'cat <<EOF\nhost=$(hostname)\nEOF\ncat <<\'RAW\'\n$(not run)\nRAW')).toBe('host=vm-a\n$(not run)\n');
    expect(await out(host, 'tr a-z A-Z <<< hello; ls /nonexistent 2>/dev/null; echo $?; ls /nonexistent 2>&1 | head -c 3')).toBe('HELLO\n2\nls:');
    expect(await out(host, 'touch /tmp/a.tar /tmp/b.tar; ls /tmp/*.tar; echo /tmp/*.none')).toBe('/tmp/a.tar\n/tmp/b.tar\n/tmp/*.none\n');
  });

  it('install -m MODE /dev/stdin FILE writes stdin with that mode from the start (files with secrets)', async () => {
    expect(await run(host, 'mkdir -p /tmp/k && install -m 600 /dev/stdin /tmp/k/token.conf && stat -c %a /tmp/k/token.conf && cat /tmp/k/token.conf', { stdin: 'token: abc\n' }))
      .toMatchObject({ code: 0, stdout: '600\ntoken: abc\n' });
    // written again: the same file, the new content, the mode kept
    expect(await run(host, 'install -m 600 /dev/stdin /tmp/k/token.conf && cat /tmp/k/token.conf /dev/stdin', { stdin: 'token: def\n' })).toMatchObject({ code: 0 });
    expect(await out(host, 'cat /tmp/k/token.conf; stat -c %a /tmp/k/token.conf')).toBe('token: def\n600\n');
  });

  it('compound commands, bash -c / sh -c with arguments, set -e, exit codes', async () => {
    expect(await out(host, 'for i in 1 2; do if [ "$i" = 1 ]; then echo one; elif [ $i -eq 2 ]; then echo two; fi; done')).toBe('one\ntwo\n');
    expect(await out(host, 'n=0; while [ ! -f /tmp/flag ]; do touch /tmp/flag; echo waited; done; { echo a; echo b; } | wc -l')).toBe('waited\n2\n');
    expect(await run(host, 'until false; do :; done')).toMatchObject({ code: 1, stderr: expect.stringContaining('loop stopped') });
    expect(await out(host, `bash -c 'echo "$0:$1:$#"' zero first; sh -c 'exit 7'; echo $?`)).toBe('zero:first:1\n7\n');
    expect(await run(host, 'bash -ec "false; echo not reached"')).toEqual({ code: 1, stdout: '', stderr: '' });
    expect(await run(host, 'set -e; if false; then :; fi; false || true; echo reached')).toMatchObject({ code: 0, stdout: 'reached\n' });
    expect(await run(host, 'exit 3; echo no')).toMatchObject({ code: 3, stdout: '' });
    expect(await run(host, 'echo "unterminated')).toMatchObject({ code: 2, stderr: expect.stringContaining('unexpected EOF') });
    expect(await run(host, 'case x in x) echo;; esac')).toMatchObject({ code: 2 });
    expect(await run(host, 'nosuchcmd arg')).toEqual({ code: 127, stdout: '', stderr: 'bash: nosuchcmd: command not found\n' });
    expect(await run(host, 'sudo nosuchcmd')).toEqual({ code: 1, stdout: '', stderr: 'sudo: nosuchcmd: command not found\n' });
  });

  it('files: permissions, mkdir -p, mv/cp/rm, test, sha256sum, scripts', async () => {
    expect(await run(host, 'echo x > /etc/apt/apt.conf.d/proxy.conf')).toMatchObject({ code: 1, stderr: 'bash: /etc/apt/apt.conf.d/proxy.conf: Permission denied\n' });
    expect(await run(host, 'sudo echo x > /etc/x.conf')).toMatchObject({ code: 1 }); // the redirection is the user's
    expect(await run(host, 'echo \'Acquire::http::Proxy "http://p:3128";\' | sudo tee /etc/apt/apt.conf.d/proxy.conf >/dev/null')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await run(host, 'echo x | sudo tee /etc/nodir/f')).toMatchObject({ code: 1, stderr: 'tee: /etc/nodir/f: No such file or directory\n' });
    expect(await run(host, 'mkdir /tmp/d1/d2')).toMatchObject({ code: 1, stderr: "mkdir: cannot create directory '/tmp/d1/d2': No such file or directory\n" });
    expect(await run(host, 'mkdir -p /tmp/d1/d2 && cp /etc/hostname /tmp/d1/d2/ && mv /tmp/d1/d2/hostname /tmp/d1/h && test -f /tmp/d1/h && test -d /tmp/d1/d2 && ! test -e /tmp/d1/d2/hostname')).toMatchObject({ code: 0 });
    expect(await run(host, 'rm /tmp/d1')).toMatchObject({ code: 1, stderr: "rm: cannot remove '/tmp/d1': Directory not empty\n" });
    expect(await run(host, 'rm -rf /tmp/d1 /tmp/never && [ ! -d /tmp/d1 ]')).toMatchObject({ code: 0 });
    expect(await out(host, 'printf abc > /tmp/h; sha256sum /tmp/h')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  /tmp/h\n');
    expect(await run(host, 'cat /etc/shadow')).toMatchObject({ code: 1, stderr: 'cat: /etc/shadow: Permission denied\n' });
    await run(host, "printf '#!/bin/bash\\necho from script $1\\n' > /tmp/s.sh");
    expect(await run(host, '/tmp/s.sh x')).toMatchObject({ code: 126 });
    expect(await out(host, 'chmod +x /tmp/s.sh && /tmp/s.sh x; bash /tmp/s.sh y')).toBe('from script x\nfrom script y\n');
    expect(await out(host, "grep -c Proxy /etc/apt/apt.conf.d/proxy.conf; sed -i 's/3128/8080/' /tmp/h 2>&1; sudo sed 's/p:3128/q:1/' /etc/apt/apt.conf.d/proxy.conf | cut -d'\"' -f2")).toContain('http://q:1');
  });
});

describe('simulated host: sudo', () => {
  const host = network().add('127.20.0.11', 'vm-b');

  it('NOPASSWD user: plain sudo works and -S leaves stdin to the command', async () => {
    expect(await out(host, 'sudo whoami; sudo -n id -u')).toBe('root\n0\n');
    expect(await run(host, "sudo -S -p '' cat", { stdin: 'data\n' })).toEqual({ code: 0, stdout: 'data\n', stderr: '' });
  });

  it('password user: -S reads and checks one line per attempt; no -S has no terminal', async () => {
    expect(await run(host, 'sudo whoami', { user: 'op' })).toMatchObject({ code: 1, stderr: expect.stringContaining('a terminal is required') });
    expect(await run(host, 'sudo -n whoami', { user: 'op' })).toEqual({ code: 1, stdout: '', stderr: 'sudo: a password is required\n' });
    expect(await run(host, 'sudo -S whoami', { user: 'op', stdin: 'op-secret\n' })).toEqual({ code: 0, stdout: 'root\n', stderr: '[sudo] password for op: ' });
    expect(await run(host, "sudo -S -p '' whoami", { user: 'op', stdin: 'a\nb\nc\n' })).toEqual({ code: 1, stdout: '', stderr: 'Sorry, try again.\nSorry, try again.\nSorry, try again.\nsudo: 3 incorrect password attempts\n' });
    // Within one exec request sudo remembers; -k forgets.
    expect(await run(host, "sudo -S -p '' true && sudo whoami", { user: 'op', stdin: 'op-secret\n' })).toMatchObject({ code: 0, stdout: 'root\n' });
    expect(await run(host, "sudo -S -p '' true && sudo -k whoami", { user: 'op', stdin: 'op-secret\n' })).toMatchObject({ code: 1 });
  });

  it("the product's sudo wrapper (sudo -k -S -p MARK -- sh -c '<if/exec timeout ...>' sh CMD)", async () => {
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const inner = [`printf '%s' ${q('[started]')} >&2`, `if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL 62 sh -c "$1"; fi`, 'exec sh -c "$1"'].join('\n');
    const wrap = (cmd: string) => `sudo -k -S -p ${q('[pw?]')} -- sh -c ${q(inner)} sh ${q(cmd)}`;
    expect(await run(host, wrap('mkdir -p /etc/x.d && tee /etc/x.d/a.conf > /dev/null; whoami'), { stdin: 'content\n' })).toEqual({ code: 0, stdout: 'root\n', stderr: '[started]' });
    expect(await out(host, 'cat /etc/x.d/a.conf')).toBe('content\n');
    expect(await run(host, wrap('exit 4'), { user: 'op', stdin: 'op-secret\n' })).toEqual({ code: 4, stdout: '', stderr: '[pw?][started]' });
    // The program log sees through the wrapper: what ran, as whom, with which status.
    const programs = host.view().programs.map((p) => [p.argv, p.root, p.exitCode]);
    expect(programs).toEqual(expect.arrayContaining([['mkdir -p /etc/x.d', true, 0], ['tee /etc/x.d/a.conf', true, 0], ['whoami', true, 0], ['printf …', true, 0]]));
    expect(programs.some(([argv]) => /^sudo -k -S -p \[pw\?\] -- sh -c /.test(String(argv)))).toBe(true);
  });

  it('records commands without the passwords typed into them', async () => {
    await run(host, "echo 'op-secret' | sudo -S -p '' true", { user: 'op' });
    await run(host, 'echo ubuntu-pw | sudo -S ls >/dev/null; docker login -u admin -p hub-token-1 example.com; export https_proxy=http://me:proxy-secret@proxy:3128');
    const commands = host.view().commands.map((c) => c.command);
    expect(commands).toContain("echo ******** | sudo -S -p '' true");
    expect(commands).toContain('echo ******** | sudo -S ls >/dev/null; docker login -u admin -p ******** example.com; export https_proxy=http://me:********@proxy:3128');
    expect(JSON.stringify(host.view())).not.toMatch(/op-secret|ubuntu-pw|hub-token-1|proxy-secret/);
  });

  it('chpasswd changes the login password', async () => {
    expect(await run(host, "echo 'ubuntu:new-pass' | sudo chpasswd")).toMatchObject({ code: 0 });
    expect(host.accounts.get('ubuntu')?.password).toBe('new-pass');
  });
});

describe('simulated host: packages, systemd, docker, registry', () => {
  const net = network();
  const a = net.add('127.20.0.12', 'vm-registry');
  const b = net.add('127.20.0.13', 'vm-node');

  it('apt: root only, -y or abort, idempotent', async () => {
    expect(await run(a, 'apt-get install -y docker-ce')).toMatchObject({ code: 100, stderr: expect.stringContaining('are you root?') });
    expect(await run(a, 'sudo apt-get install docker-ce')).toMatchObject({ code: 1, stdout: expect.stringContaining('Do you want to continue? [Y/n] Abort.') });
    expect(await run(a, 'sudo DEBIAN_FRONTEND=noninteractive apt-get -qq install docker-ce')).toMatchObject({ code: 0 });
    expect(await out(a, 'sudo apt-get install -y docker-ce')).toContain('docker-ce is already the newest version');
    expect(await run(a, 'sudo apt update')).toMatchObject({ code: 0, stderr: expect.stringContaining('apt does not have a stable CLI interface') });
    expect(await out(a, "dpkg -l | grep -c '^ii  docker-ce'; which docker; command -v docker")).toBe('2\n/usr/bin/docker\n/usr/bin/docker\n');
  });

  it('systemctl: needs root, daemon.json errors fail the start, docker needs its daemon', async () => {
    expect(await run(a, 'systemctl restart docker')).toMatchObject({ code: 1, stderr: expect.stringContaining('Interactive authentication required') });
    expect(await out(a, 'systemctl is-active docker; systemctl is-enabled docker; systemctl is-active nosuch')).toBe('active\nenabled\ninactive\n');
    await run(a, "echo '{broken' | sudo tee /etc/docker/daemon.json");
    expect(await run(a, 'sudo systemctl restart docker')).toMatchObject({ code: 1, stderr: expect.stringContaining('Job for docker.service failed') });
    expect(await run(a, 'sudo docker ps')).toMatchObject({ code: 1, stderr: expect.stringContaining('Is the docker daemon running?') });
    expect(await run(a, 'sudo docker run -d registry')).toMatchObject({ code: 125 });
    await run(a, `echo '{"insecure-registries": [], "exec-opts": ["native.cgroupdriver=systemd"]}' | sudo tee /etc/docker/daemon.json`);
    expect(await run(a, 'sudo systemctl restart docker && sudo docker info --format "{{.CgroupDriver}}"')).toMatchObject({ code: 0, stdout: 'systemd\n' });
    expect(await run(a, 'sudo systemctl restart nosuch')).toMatchObject({ code: 5, stderr: 'Failed to restart nosuch.service: Unit nosuch.service not found.\n' });
  });

  it('docker: load (docker save archive or stand-in file), run conflicts, ps/images/inspect formats, rm', async () => {
    a.fs.writeFile('/tmp/registry.tar', writeImageArchive(['registry:2.8.3', 'registry:latest']), { name: 'ubuntu', uid: 1000, home: '/home/ubuntu' });
    a.fs.writeFile('/tmp/app-image.tar', 'stand-in for docker save output', { name: 'ubuntu', uid: 1000, home: '/home/ubuntu' });
    expect(await out(a, 'sudo docker load -i /tmp/registry.tar; sudo docker load --input /tmp/app-image.tar')).toBe('Loaded image: registry:2.8.3\nLoaded image: registry:latest\nLoaded image: app-image:latest\n');
    expect(await run(a, 'sudo docker load -i /tmp/none.tar')).toMatchObject({ code: 1, stderr: 'open /tmp/none.tar: no such file or directory\n' });
    expect(await run(a, 'sudo docker run -d -p 5000:5000 --name reg registry:2.8.3')).toMatchObject({ code: 0 });
    expect(await run(a, 'sudo docker run -d -p 5001:5000 --name reg registry:2.8.3')).toMatchObject({ code: 125, stderr: expect.stringContaining('The container name "/reg" is already in use') });
    expect(await run(a, 'sudo docker run -d -p 5000:5000 --name reg2 registry:2.8.3')).toMatchObject({ code: 125, stderr: expect.stringContaining('port is already allocated') });
    expect(await run(a, 'sudo docker run -d --bogus x')).toMatchObject({ code: 125, stderr: expect.stringContaining('unknown flag: --bogus') });
    expect(await out(a, "sudo docker ps -a --format '{{.Names}} {{.State}}' | sort")).toBe('reg running\nreg2 created\n');
    expect(await out(a, 'sudo docker images --format "{{.Repository}}:{{.Tag}}" | sort')).toBe('app-image:latest\nregistry:2.8.3\nregistry:latest\n');
    expect(JSON.parse(await out(a, 'sudo docker inspect reg'))[0]).toMatchObject({ Name: '/reg', State: { Running: true }, HostConfig: { PortBindings: { '5000/tcp': [{ HostPort: '5000' }] } } });
    expect(await run(a, 'sudo docker inspect nope')).toEqual({ code: 1, stdout: '[]\n', stderr: 'Error: No such object: nope\n' });
    expect(await run(a, 'sudo docker rm reg')).toMatchObject({ code: 1, stderr: expect.stringContaining('cannot remove a running container') });
    expect(await run(a, 'sudo docker rm -f reg2 && sudo docker run hello-world')).toMatchObject({ code: 0, stderr: expect.stringContaining("Unable to find image 'hello-world:latest' locally") });
    expect(await run(a, 'sudo docker bogus')).toMatchObject({ code: 1, stderr: expect.stringContaining("'bogus' is not a docker command") });
  });

  it('a registry on one host: curl from another, push/pull/login need insecure-registries', async () => {
    expect(await out(b, 'curl -s http://127.20.0.12:5000/v2/')).toBe('{}');
    expect(await run(b, 'curl -sS http://127.20.0.12:5999/v2/')).toMatchObject({ code: 7, stderr: expect.stringContaining('Connection refused') });
    expect(await run(b, 'curl -sf http://127.20.0.12:5000/v2/nope/tags/list')).toMatchObject({ code: 22 });
    expect(await out(b, "curl -s -o /dev/null -w '%{http_code}' http://localhost:5000/v2/")).toBe('000'); // nothing on b:5000
    expect(await out(b, "curl -s -o /dev/null -w '%{http_code}' http://127.20.0.12:5000/v2/")).toBe('200');
    await run(b, 'sudo apt-get install -y docker-ce');
    expect(await run(b, 'sudo docker login 127.20.0.12:5000 -u u --password-stdin', { stdin: 'reg-pass\n' })).toMatchObject({ code: 1, stderr: expect.stringContaining('server gave HTTP response to HTTPS client') });
    await run(b, `echo '{"insecure-registries": ["127.20.0.12:5000"]}' | sudo tee /etc/docker/daemon.json && sudo systemctl restart docker`);
    expect(await run(b, 'sudo docker login 127.20.0.12:5000 -u u --password-stdin', { stdin: 'reg-pass\n' })).toMatchObject({ code: 0, stdout: 'Login Succeeded\n' });
    expect(await run(b, 'sudo docker pull 127.20.0.12:5000/app:1')).toMatchObject({ code: 1, stderr: expect.stringContaining('manifest unknown') });
    expect(await run(b, 'sudo docker pull alpine:3 && sudo docker tag alpine:3 127.20.0.12:5000/app:1 && sudo docker push 127.20.0.12:5000/app:1')).toMatchObject({ code: 0 });
    expect(await out(a, 'curl -s http://localhost:5000/v2/_catalog; curl -s http://localhost:5000/v2/app/tags/list')).toBe('{"repositories":["app"]}{"name":"app","tags":["1"]}');
    expect(await run(b, 'sudo docker rmi 127.20.0.12:5000/app:1 && sudo docker pull 127.20.0.12:5000/app:1')).toMatchObject({ code: 0 });
    expect(JSON.stringify(b.view())).not.toContain('reg-pass');
  });
});

describe('credentials from user_data', () => {
  const defaults = [{ username: 'ubuntu', password: 'ubuntu' }];
  /** Nova keeps user_data base64-encoded, as the client sent it. */
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const names = (userData: string | null, adminPass: string | null = null) =>
    bootConfig({ userData: userData === null ? null : b64(userData), adminPass }, defaults).accounts.map((a) => [a.name, a.password, a.sudo, a.passwordLogin]);

  it('cloud-config, scripts, MIME, base64 inside, adminPass', () => {
    expect(names(null)).toEqual([['ubuntu', 'ubuntu', 'nopasswd', true]]);
    expect(names(null, 'ap')).toEqual([['ubuntu', 'ap', 'nopasswd', true]]);
    expect(names('#cloud-config\npassword: pw1\nssh_pwauth: false\n')).toEqual([['ubuntu', 'pw1', 'nopasswd', false]]);
    expect(names('#cloud-config\nchpasswd:\n  list: |\n    ubuntu:pw2\n')).toEqual([['ubuntu', 'pw2', 'nopasswd', true]]);
    expect(names('#cloud-config\nchpasswd:\n  users:\n    - {name: ubuntu, password: pw3, type: text}\n')).toEqual([['ubuntu', 'pw3', 'nopasswd', true]]);
    expect(names('#cloud-config\nusers:\n  - name: a\n    passwd: $6$hash\n  - name: b\n    plain_text_passwd: pb\n    groups: [sudo]\n    lock_passwd: true\n')).toEqual([
      ['a', undefined, 'none', true],
      ['b', 'pb', 'password', false],
    ]);
    expect(names("#!/bin/bash\necho 'ubuntu:pw4' | chpasswd\n")).toEqual([['ubuntu', 'pw4', 'nopasswd', true]]);
    const mime = 'Content-Type: multipart/mixed; boundary="XX"\nMIME-Version: 1.0\n\n--XX\nContent-Type: text/cloud-config\n\n#cloud-config\npassword: pw5\n--XX--\n';
    expect(names(mime)).toEqual([['ubuntu', 'pw5', 'nopasswd', true]]);
    expect(names(b64('#cloud-config\npassword: pw6\n'))).toEqual([['ubuntu', 'pw6', 'nopasswd', true]]);
    expect(bootConfig({ userData: b64('#cloud-config\nhostname: named\n'), adminPass: null }, defaults).hostname).toBe('named');
    expect(names('#cloud-config\nuser: ec2-user\npassword: pw7\n')).toEqual([['ec2-user', 'pw7', 'nopasswd', true]]);
  });

  /** The multipart Heat 27 sends for user_data_format HEAT_CFNTOOLS (the default), trimmed; its parts as seen on the wire. */
  function heatMime(userPart: string): string {
    const part = (type: string, filename: string, body: string) =>
      `--===============1==\nContent-Type: text/${type}; charset="us-ascii"\nMIME-Version: 1.0\nContent-Transfer-Encoding: 7bit\nContent-Disposition: attachment; filename="${filename}"\n\n${body}\n`;
    return [
      'Content-Type: multipart/mixed; boundary="===============1=="\nMIME-Version: 1.0\n',
      part('cloud-config', 'cloud-config', "\n\n# Capture all subprocess output into a logfile\noutput: {all: '| tee -a /var/log/cloud-init-output.log'}"),
      part('cloud-boothook', 'boothook.sh', '#!/bin/bash\ncfn-create-aws-symlinks\nexit 0'),
      part('part-handler', 'part-handler.py', '#part-handler\ndef list_types():\n    return ["text/x-cfninitdata"]'),
      part('x-cfninitdata', 'cfn-userdata', userPart),
      part('x-shellscript', 'loguserdata.py', '#!/usr/bin/env python3\nimport subprocess'),
      part('x-cfninitdata', 'cfn-metadata-server', 'http://127.0.0.1:8000/v1/'),
      '--===============1==--\n',
    ].join('');
  }

  it("Heat's HEAT_CFNTOOLS multipart: the template's script (cfn-userdata) is run by heat-cfntools; a cloud-config there is not applied", () => {
    expect(names(heatMime("#!/bin/bash\necho 'ubuntu:from-heat' | chpasswd"))).toEqual([['ubuntu', 'from-heat', 'nopasswd', true]]);
    expect(names(heatMime('#cloud-config\npassword: ignored'))).toEqual([['ubuntu', 'ubuntu', 'nopasswd', true]]);
  });
});
