/**
 * Kubeconfig files in the shape `openstack coe cluster config` writes
 * (python-magnumclient): one cluster named after the cluster, one user, a
 * context `default` that is the current context. The certificate variant
 * is the admin's; the token variant is for a service account's token.
 */
import YAML from 'yaml';

export interface KubeconfigBase {
  clusterName: string;
  /** The API endpoint, e.g. https://10.0.0.5:6443. */
  server: string;
  caPem: string;
  /** The kubeconfig's user entry name (default `admin`, as Magnum's client writes). */
  user?: string;
}

export interface CertKubeconfigOptions extends KubeconfigBase {
  clientCertPem: string;
  clientKeyPem: string;
}

export interface TokenKubeconfigOptions extends KubeconfigBase {
  token: string;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

function document(o: KubeconfigBase, user: Record<string, string>): string {
  const userName = o.user ?? 'admin';
  return YAML.stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': b64(o.caPem), server: o.server }, name: o.clusterName }],
    contexts: [{ context: { cluster: o.clusterName, user: userName }, name: 'default' }],
    'current-context': 'default',
    kind: 'Config',
    preferences: {},
    users: [{ name: userName, user }],
  }, { lineWidth: 0, indentSeq: false });
}

/** A kubeconfig authenticating with a client certificate (certificate-, client-certificate- and client-key-data in base64). */
export function kubeconfig(o: CertKubeconfigOptions): string {
  return document(o, { 'client-certificate-data': b64(o.clientCertPem), 'client-key-data': b64(o.clientKeyPem) });
}

/** A kubeconfig authenticating with a bearer token (a service account's, from the TokenRequest API). */
export function tokenKubeconfig(o: TokenKubeconfigOptions): string {
  return document(o, { token: o.token });
}
