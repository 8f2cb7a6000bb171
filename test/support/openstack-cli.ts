/**
 * The stock `openstack` CLI (from the embedded cloud's venv) as a test user
 * of the harness's Keystone, and what the Magnum tests do with it: `coe`
 * calls, a cluster's status waited for, `coe cluster config` and kubectl
 * with the kubeconfig it wrote.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { VENV } from '../../runtime/openstack/install';
import { readState } from '../harness/state';
import { eventually } from './api';
import type { TestUser } from './identity';
import { kubectlBin } from './kube-apiserver';
import { LATEST, mcall } from './magnum';

const exec = promisify(execFile);

export function openstackCli(user: TestUser, dir: string) {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: dir, SHELL: '/bin/bash', PYTHONWARNINGS: 'ignore',
    OS_AUTH_URL: readState().keystoneUrl, OS_REGION_NAME: 'RegionOne', OS_USERNAME: user.name, OS_PASSWORD: user.password, OS_PROJECT_NAME: user.project,
    OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_IDENTITY_API_VERSION: '3',
  };

  /** `openstack <args>`; with json, `-f json` parsed. A failure carries the CLI's own message. */
  async function openstack(args: string[], json = false): Promise<any> {
    try {
      const { stdout } = await exec(path.join(VENV, 'bin', 'openstack'), [...args, ...(json ? ['-f', 'json'] : [])], { env, timeout: 120_000, cwd: dir });
      return json ? JSON.parse(stdout) : stdout;
    } catch (e) {
      const err = e as { stderr?: string; stdout?: string; message: string };
      throw new Error(`openstack ${args.join(' ')}: ${err.stderr || err.stdout || err.message}`);
    }
  }
  const coe = (args: string[], json = false) => openstack(['coe', ...args], json);

  /**
   * Polls the Magnum API until the cluster is `want` (a *_FAILED status fails at once with its reason), then shows
   * it with the CLI, whose answer is returned: what the user's client shows is what is asserted, without a CLI run
   * (two seconds of CPU, a Keystone login) every few seconds of the wait.
   */
  async function waitCluster(name: string, want: string, timeoutMs = 600_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await mcall('GET', `/v1/clusters/${name}`, undefined, await user.headers(LATEST));
      if (r.status !== 200) throw new Error(`cluster ${name}: ${r.status} ${r.text.slice(0, 300)}`);
      const c = r.body;
      if (c.status === want) break;
      if (c.status.endsWith('_FAILED')) throw new Error(`${name} ${c.status}: ${c.status_reason}`);
      if (Date.now() > deadline) throw new Error(`${name} still ${c.status} after ${timeoutMs / 1000} s`);
      await new Promise((res) => setTimeout(res, 2000));
    }
    const shown = await coe(['cluster', 'show', name], true);
    if (shown.status !== want) throw new Error(`the API answered ${want} for ${name}, but the CLI shows ${shown.status}`);
    return shown;
  }

  /** Polls the Magnum API until the cluster is gone (404), then checks that the CLI's list has it no more. */
  async function waitClusterGone(name: string, timeoutMs = 300_000): Promise<void> {
    await eventually(`cluster ${name} gone`, async () => ((await mcall('GET', `/v1/clusters/${name}`, undefined, await user.headers(LATEST))).status === 404 ? true : undefined), timeoutMs, 2000);
    const listed = (await coe(['cluster', 'list'], true)) as { name: string }[];
    if (listed.some((c) => c.name === name)) throw new Error(`the API answers 404 for ${name}, but the CLI still lists it`);
  }

  /** `coe cluster config` into dir/sub; the directory. */
  async function config(name: string, sub: string): Promise<string> {
    const d = path.join(dir, sub);
    fs.mkdirSync(d, { recursive: true });
    expect(await coe(['cluster', 'config', name, '--dir', d, '--force'])).toMatch(/^export KUBECONFIG=/);
    return d;
  }

  /** kubectl with a kubeconfig `coe cluster config` wrote. */
  async function kubectl(configDir: string, args: string[], timeoutS = 20): Promise<string> {
    const { stdout } = await exec(kubectlBin(), ['--kubeconfig', path.join(configDir, 'config'), `--request-timeout=${timeoutS}s`, ...args], { timeout: 60_000 });
    return stdout;
  }

  /** Node name -> Ready status, as kubectl sees them. */
  async function readyNodes(configDir: string): Promise<Record<string, string>> {
    const nodes = JSON.parse(await kubectl(configDir, ['get', 'nodes', '-o', 'json'])).items;
    return Object.fromEntries(nodes.map((n: any) => [n.metadata.name, n.status.conditions.find((c: any) => c.type === 'Ready')?.status]));
  }

  return { openstack, coe, waitCluster, waitClusterGone, config, kubectl, readyNodes };
}
