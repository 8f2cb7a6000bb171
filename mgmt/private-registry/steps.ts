/**
 * The install steps of the Docker private registry on one VM (Ubuntu 20.04),
 * as Tacker's sample driver does them, each idempotent and re-runnable with
 * its own timeout. Success is the exit code, never "stderr was empty".
 */
import crypto from 'node:crypto';
import type { SshSession } from '../../ssh';
import { shellQuote } from '../../ssh';
import type { PrivateRegistryInstallationParam } from '../../model/private-registry-params';
import { aptConfString, systemdEnvironment } from './config-quote';

export const CONTAINER = 'private_registry';
export const IMAGE = 'registry:latest';
const MIN = 60_000;

export interface Step { name: string; timeoutMs: number; run(s: SshSession): Promise<void> }

const write = (s: SshSession, file: string, content: string) =>
  s.run(`mkdir -p ${shellQuote(file.replace(/\/[^/]*$/, ''))} && tee ${shellQuote(file)} > /dev/null`, { sudo: true, stdin: content, timeoutMs: MIN });

/**
 * A fresh private directory on the VNFC for one step's downloads, removed afterwards: a random
 * name made with `mkdir -m 700` (as `mktemp -d` does; fails if anything is already there), so no
 * fixed /tmp name another local user could plant a file or symlink at.
 */
async function inTempDir(s: SshSession, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = `/tmp/nfv-registry.${crypto.randomBytes(8).toString('hex')}`;
  await s.run(`mkdir -m 700 -- ${shellQuote(dir)}`, { timeoutMs: MIN });
  try {
    await fn(dir);
  } finally {
    await s.exec(`rm -rf -- ${shellQuote(dir)}`, { timeoutMs: MIN }).catch(() => undefined);
  }
}

/** Polls a command until it prints the expected text (a container or service coming up). */
async function waitFor(s: SshSession, cmd: string, want: RegExp, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const r = await s.exec(cmd, { sudo: true, timeoutMs: MIN });
    last = `${r.stdout}${r.stderr}`.trim();
    if (r.code === 0 && want.test(r.stdout)) return;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs / 1000} s (last: ${last.slice(0, 300) || 'no output'})`);
    await new Promise((res) => setTimeout(res, 2000));
  }
}

export function installSteps(p: PrivateRegistryInstallationParam, image?: { content: Buffer; name: string }): Step[] {
  const port = p.port_no ?? 5000;
  const proxyEnv = p.proxy
    ? [p.proxy.http_proxy && `http_proxy=${shellQuote(p.proxy.http_proxy)}`, p.proxy.https_proxy && `https_proxy=${shellQuote(p.proxy.https_proxy)}`, p.proxy.no_proxy && `no_proxy=${shellQuote(p.proxy.no_proxy)}`].filter(Boolean).join(' ')
    : '';
  const apt = (args: string) => `env DEBIAN_FRONTEND=noninteractive ${proxyEnv} apt-get ${args}`.replace(/\s+/g, ' ');
  const steps: Step[] = [];
  if (p.proxy) {
    steps.push({
      name: 'configure apt proxy', timeoutMs: MIN,
      run: (s) => write(s, '/etc/apt/apt.conf.d/proxy.conf', [
        p.proxy!.http_proxy && `Acquire::http::Proxy ${aptConfString(p.proxy!.http_proxy)};`,
        p.proxy!.https_proxy && `Acquire::https::Proxy ${aptConfString(p.proxy!.https_proxy)};`,
      ].filter(Boolean).join('\n') + '\n').then(() => undefined),
    });
  }
  steps.push(
    { name: 'install prerequisites', timeoutMs: 15 * MIN, run: async (s) => {
      await s.run(apt('update'), { sudo: true, timeoutMs: 10 * MIN });
      await s.run(apt('install -y apt-transport-https ca-certificates curl gnupg-agent software-properties-common'), { sudo: true, timeoutMs: 10 * MIN });
    } },
    { name: 'add the Docker repository', timeoutMs: 5 * MIN, run: (s) => inTempDir(s, async (dir) => {
      const key = shellQuote(`${dir}/docker.gpg`);
      await s.run(`${proxyEnv ? `env ${proxyEnv} ` : ''}curl -fsSL https://download.docker.com/linux/ubuntu/gpg -o ${key}`, { timeoutMs: 2 * MIN });
      await s.run(`apt-key add ${key}`, { sudo: true, timeoutMs: MIN });
      await s.run('add-apt-repository -y "deb [arch=amd64] https://download.docker.com/linux/ubuntu focal stable"', { sudo: true, timeoutMs: 3 * MIN });
    }) },
    { name: 'install Docker', timeoutMs: 30 * MIN, run: async (s) => {
      await s.run(apt('update'), { sudo: true, timeoutMs: 10 * MIN });
      await s.run(apt('install -y docker-ce docker-ce-cli containerd.io'), { sudo: true, timeoutMs: 20 * MIN });
    } },
    { name: 'wait until Docker runs', timeoutMs: 5 * MIN, run: (s) => waitFor(s, 'systemctl is-active docker', /^active/m, 5 * MIN, 'docker active') },
  );
  if (p.proxy) {
    steps.push({
      name: 'configure the Docker proxy', timeoutMs: 5 * MIN,
      run: async (s) => {
        const env = Object.entries({ HTTP_PROXY: p.proxy!.http_proxy, HTTPS_PROXY: p.proxy!.https_proxy, NO_PROXY: p.proxy!.no_proxy })
          .filter(([, v]) => v).map(([k, v]) => systemdEnvironment(k, v!));
        await write(s, '/etc/systemd/system/docker.service.d/https-proxy.conf', `[Service]\n${env.join('\n')}\n`);
        await s.run('systemctl daemon-reload', { sudo: true, timeoutMs: MIN });
        await s.run('systemctl restart docker', { sudo: true, timeoutMs: 3 * MIN });
        await waitFor(s, 'systemctl is-active docker', /^active/m, 3 * MIN, 'docker active after restart');
      },
    });
  }
  steps.push(
    image
      ? { name: `load the registry image from ${p.image_path}`, timeoutMs: 30 * MIN, run: (s) => inTempDir(s, async (dir) => {
        const remote = `${dir}/${image.name}`;
        await s.upload(image.content, remote, { timeoutMs: 20 * MIN });
        await s.run(`docker load -i ${shellQuote(remote)}`, { sudo: true, timeoutMs: 10 * MIN });
      }) }
      : { name: `pull ${IMAGE}`, timeoutMs: 30 * MIN, run: async (s) => { await s.run(`docker pull ${IMAGE}`, { sudo: true, timeoutMs: 30 * MIN }); } },
    { name: 'check the registry image', timeoutMs: MIN, run: (s) => waitFor(s, `docker images -q ${IMAGE}`, /\S/, MIN, `image ${IMAGE} present`) },
    { name: 'run the registry container', timeoutMs: 5 * MIN, run: async (s) => {
      const running = await s.exec(`docker inspect -f '{{.State.Running}}' ${CONTAINER}`, { sudo: true, timeoutMs: MIN });
      if (running.code === 0 && /true/.test(running.stdout)) return; // already there (re-run)
      await s.exec(`docker rm -f ${CONTAINER}`, { sudo: true, timeoutMs: MIN });
      await s.run(`docker run -d -p ${port}:5000 -v /private_registry:/var/lib/registry --restart=always --name ${CONTAINER} ${IMAGE}`, { sudo: true, timeoutMs: 3 * MIN });
    } },
    { name: 'wait until the registry container runs', timeoutMs: 5 * MIN, run: (s) => waitFor(s, `docker inspect -f '{{.State.Running}}' ${CONTAINER}`, /true/, 5 * MIN, 'container running') },
    { name: `check http://localhost:${port}/v2/`, timeoutMs: 3 * MIN, run: (s) => waitFor(s, `curl -sf http://localhost:${port}/v2/`, /\{/, 3 * MIN, 'registry API answering') },
  );
  return steps;
}
