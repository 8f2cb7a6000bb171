/**
 * A Kubernetes cluster as a VIM through Tacker's /v1.0/vims, with the stock
 * `openstack vim register --config-file` (type kubernetes, bearer_token,
 * ssl_ca_cert) against a real kube-apiserver: registered only when the token
 * opens the API, the token never shown.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { KubeClient } from '../../infra/kubernetes';
import { adminPair } from '../../cluster/pki';
import { VENV } from '../../runtime/openstack/install';
import { readState } from '../harness/state';
import { call } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';
import { startKubeApiserver, type TestKubeApiserver } from '../support/kube-apiserver';

const run = promisify(execFile);
let api: TestKubeApiserver;
let user: TestUser;
let dir: string;
let token: string;

async function openstack(args: string[]): Promise<any> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: dir, PYTHONWARNINGS: 'ignore',
    OS_AUTH_URL: readState().keystoneUrl, OS_REGION_NAME: 'RegionOne', OS_USERNAME: user.name, OS_PASSWORD: user.password, OS_PROJECT_NAME: user.project,
    OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_IDENTITY_API_VERSION: '3',
  };
  try {
    const { stdout } = await run(path.join(VENV, 'bin', 'openstack'), [...args, '-f', 'json'], { env, timeout: 120_000, cwd: dir });
    return JSON.parse(stdout);
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`openstack ${args.join(' ')}: ${err.stderr || err.stdout || err.message}`);
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vim-k8s-'));
  api = await startKubeApiserver({ clusterName: 'vim-test' });
  const admin = adminPair(api.pki);
  const kube = new KubeClient({ server: api.url, caPem: api.pki.certs.kubernetesCa, credentials: { clientCertPem: admin.certPem, clientKeyPem: admin.keyPem } });
  await kube.createServiceAccount('kube-system', 'tacker');
  token = (await kube.requestToken('kube-system', 'tacker', 3600)).token;
  kube.close();
  const runId = Date.now().toString(36);
  user = await keystoneUser(`k8s-vim-project-${runId}`, `k8s-vim-operator-${runId}`, 'member');
}, 120_000);
afterAll(async () => {
  await api?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('openstack vim register --config-file of a Kubernetes VIM: shown without its token, listed, deleted', async () => {
  fs.writeFileSync(path.join(dir, 'k8s.yaml'), [
    `auth_url: '${api.url}'`, `bearer_token: '${token}'`, 'ssl_ca_cert: |', ...api.pki.certs.kubernetesCa.trim().split('\n').map((l) => `  ${l}`),
    "project_name: 'default'", "type: 'kubernetes'", '',
  ].join('\n'));
  const vim = await openstack(['vim', 'register', '--config-file', path.join(dir, 'k8s.yaml'), 'cluster-vim']);
  expect(vim.type).toBe('kubernetes');
  expect(vim.auth_url).toBe(api.url);
  expect(JSON.stringify(vim)).not.toContain(token);
  const shown = await openstack(['vim', 'show', 'cluster-vim']);
  expect(JSON.stringify(shown)).not.toContain(token);
  expect(JSON.stringify(shown)).toContain('BEGIN CERTIFICATE');
  expect((await openstack(['vim', 'list'])).map((v: any) => v.Name)).toContain('cluster-vim');
  await run(path.join(VENV, 'bin', 'openstack'), ['vim', 'delete', 'cluster-vim'], { env: { PATH: process.env.PATH, HOME: dir, OS_AUTH_URL: readState().keystoneUrl, OS_REGION_NAME: 'RegionOne', OS_USERNAME: user.name, OS_PASSWORD: user.password, OS_PROJECT_NAME: user.project, OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_IDENTITY_API_VERSION: '3' }, cwd: dir });
  expect((await openstack(['vim', 'list'])).map((v: any) => v.Name)).not.toContain('cluster-vim');
});

test('a token the API server refuses, a missing CA or a plain http URL: 400, nothing registered', async () => {
  const body = (over: Record<string, unknown>, cred: Record<string, unknown> = {}) => ({
    vim: { name: 'bad-k8s', type: 'kubernetes', auth_url: api.url, vim_project: { name: 'default' }, auth_cred: { bearer_token: token, ssl_ca_cert: api.pki.certs.kubernetesCa, ...cred }, ...over },
  });
  const forged = await call('POST', '/v1.0/vims', body({}, { bearer_token: `${token.slice(0, -4)}AAAA` }));
  expect(forged.status).toBe(400);
  expect(forged.body.TackerError.type).toBe('VimUnauthorizedException');
  expect(forged.text).not.toContain(token.slice(0, 40));
  const noCa = await call('POST', '/v1.0/vims', body({}, { ssl_ca_cert: undefined }));
  expect(noCa.status).toBe(400);
  expect(noCa.body.TackerError.message).toContain('ssl_ca_cert');
  const garbageCa = await call('POST', '/v1.0/vims', body({}, { ssl_ca_cert: '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n' }));
  expect([garbageCa.status, garbageCa.body.TackerError.message]).toEqual([400, 'auth_cred.ssl_ca_cert: is not a PEM certificate']);
  const http = await call('POST', '/v1.0/vims', body({ auth_url: api.url.replace('https:', 'http:') }));
  expect(http.status).toBe(400);
  expect((await call('GET', '/v1.0/vims')).body.vims.map((v: any) => v.name)).not.toContain('bad-k8s');
});
