/**
 * cluster/pki against a real kube-apiserver (test/support/kube-apiserver.ts)
 * and the real kubectl: the admin certificate, a CSR signed the Magnum way,
 * a certificate from another cluster's CA, bootstrap tokens.
 */
import { z } from 'zod';
import {
  type ClusterPki, adminPair, bootstrapTokenSecret, caPair, kubeconfig, newBootstrapToken, newClusterPki, signCsr, tokenKubeconfig,
} from '../../cluster/pki';
import { KubeApiError, KubeClient, type KubeCredentials } from '../../infra/kubernetes';
import { opensslCsr, opensslSign } from '../support/openssl';
import { type TestKubeApiserver, startKubeApiserver } from '../support/kube-apiserver';

let api: TestKubeApiserver;
let other: ClusterPki;
const clients: KubeClient[] = [];

beforeAll(async () => {
  [api, other] = await Promise.all([startKubeApiserver({ clusterName: 'k8s-alpha' }), newClusterPki({ clusterName: 'k8s-beta' })]);
}, 180_000);
afterAll(async () => {
  for (const c of clients) c.close();
  await api?.stop();
});

const whoamiSchema = z.object({ status: z.object({ userInfo: z.object({ username: z.string(), groups: z.array(z.string()) }) }) });

function whoami(kubeconfigFile: string): { username: string; groups: string[] } {
  const r = api.kubectl(['auth', 'whoami', '-o', 'json'], { kubeconfig: kubeconfigFile });
  if (r.status !== 0) throw new Error(`kubectl auth whoami: ${r.stderr}`);
  return whoamiSchema.parse(JSON.parse(r.stdout)).status.userInfo;
}

function certKubeconfigFile(name: string, clientCertPem: string, clientKeyPem: string): string {
  return api.writeFile(name, kubeconfig({ clusterName: 'k8s-alpha', server: api.url, caPem: api.pki.certs.kubernetesCa, clientCertPem, clientKeyPem }));
}

function client(credentials: KubeCredentials, caPem = api.pki.certs.kubernetesCa): KubeClient {
  const c = new KubeClient({ server: api.url, caPem, credentials, timeoutMs: 10_000 });
  clients.push(c);
  return c;
}

const admin = () => client({ clientCertPem: api.pki.certs.admin, clientKeyPem: api.pki.keys.admin });

it('the admin certificate of newClusterPki works with kubectl: /healthz, and whoami is admin in system:masters', () => {
  const health = api.kubectl(['get', '--raw', '/healthz']);
  expect(health).toMatchObject({ status: 0, stdout: 'ok' });
  const me = whoami(api.adminKubeconfig);
  expect(me.username).toBe('admin');
  expect(me.groups).toEqual(expect.arrayContaining(['system:masters', 'system:authenticated']));
});

it('a CSR made as python-magnumclient makes it (RSA 2048, CN=admin, O=system:masters), signed by signCsr, gives a working kubeconfig', async () => {
  const { csrPem, keyPem } = opensslCsr('/CN=admin/O=system:masters');
  const certPem = await signCsr(caPair(api.pki), csrPem);
  const file = certKubeconfigFile('magnum.kubeconfig', certPem, keyPem);
  expect(api.kubectl(['get', 'namespaces', 'kube-system', '-o', 'name'], { kubeconfig: file })).toMatchObject({ status: 0, stdout: 'namespace/kube-system\n' });
  expect(whoami(file)).toMatchObject({ username: 'admin', groups: expect.arrayContaining(['system:masters']) });
});

it('a CSR asking for CA=true is signed as CA=false: the certificate authenticates, a certificate it signs gets 401', async () => {
  const { csrPem, keyPem } = opensslCsr('/CN=bob/O=system:masters', ['basicConstraints=CA:TRUE', 'keyUsage=digitalSignature,keyCertSign']);
  const bobCert = await signCsr(caPair(api.pki), csrPem);
  expect(whoami(certKubeconfigFile('bob.kubeconfig', bobCert, keyPem))).toMatchObject({ username: 'bob' });
  const mallory = opensslCsr('/CN=mallory/O=system:masters');
  const malloryCert = opensslSign(bobCert, keyPem, mallory.csrPem);
  // the chain bob -> cluster CA is offered whole: the API server still refuses it, bob is no CA
  const r = await client({ clientCertPem: `${malloryCert}${bobCert}`, clientKeyPem: mallory.keyPem }).healthz();
  expect(r.status).toBe(401);
});

it('a certificate from another cluster\'s CA gets 401 (kubectl: Unauthorized), and another CA does not verify the API server', async () => {
  const foreign = adminPair(other);
  const file = certKubeconfigFile('foreign.kubeconfig', foreign.certPem, foreign.keyPem);
  const r = api.kubectl(['get', 'nodes'], { kubeconfig: file });
  expect(r.status).not.toBe(0);
  expect(r.stderr).toMatch(/Unauthorized/);
  const c = client({ clientCertPem: foreign.certPem, clientKeyPem: foreign.keyPem });
  expect((await c.healthz()).status).toBe(401);
  await expect(c.listNodes()).rejects.toMatchObject({ status: 401 });
  const wrongTrust = client({ clientCertPem: api.pki.certs.admin, clientKeyPem: api.pki.keys.admin }, other.certs.kubernetesCa);
  await expect(wrongTrust.healthz()).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
});

describe('bootstrap tokens', () => {
  it('a token whose Secret was created through the client authenticates as system:bootstrap:<id>; expired, unknown and wrong ones get 401', async () => {
    const adminClient = admin();
    const expired = newBootstrapToken();
    expect(await adminClient.createSecret('kube-system', bootstrapTokenSecret(expired, { now: new Date(Date.now() - 2 * 3600_000), ttlSeconds: 3600 }))).toBe('created');
    const token = newBootstrapToken();
    const secret = bootstrapTokenSecret(token);
    expect(await adminClient.createSecret('kube-system', secret)).toBe('created');
    expect(await adminClient.createSecret('kube-system', secret)).toBe('exists');

    // the authenticator reads the Secrets through an informer: the new one is seen within moments
    const joiner = client({ token: token.token });
    let me: { username: string; groups: string[] } | undefined;
    for (const until = Date.now() + 30_000; !me && Date.now() < until;) {
      me = await joiner.whoAmI().catch((e: unknown) => {
        if (e instanceof KubeApiError && e.status === 401) return undefined;
        throw e;
      });
      if (!me) await new Promise((r) => setTimeout(r, 250));
    }
    expect(me).toEqual({
      username: `system:bootstrap:${token.id}`,
      groups: expect.arrayContaining(['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated']),
    });
    // the same as kubectl sees it, with a token kubeconfig
    const file = api.writeFile('bootstrap.kubeconfig', tokenKubeconfig({ clusterName: 'k8s-alpha', server: api.url, caPem: api.pki.certs.kubernetesCa, user: 'joiner', token: token.token }));
    expect(whoami(file).username).toBe(`system:bootstrap:${token.id}`);

    const refused = [expired.token, newBootstrapToken().token, `${token.id}.${'0'.repeat(16)}`, 'garbage'];
    for (const t of refused) {
      const err = await client({ token: t }).whoAmI().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KubeApiError);
      expect((err as KubeApiError).status).toBe(401);
      expect((err as KubeApiError).message).not.toContain(t.split('.')[1] ?? t);
    }
  });
});
