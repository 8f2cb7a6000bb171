/**
 * HTTP as seen from a simulated host: localhost and the addresses of other
 * simulated servers reach the containers publishing that port (the Docker
 * registry answers its /v2/ API), anything else is "the internet" — a few
 * well-known URLs answer with plausible content, the rest with an empty 200.
 */
import type { SimHost } from './host';
import { isRegistryImage, type DockerContainer } from './docker';
import { parseCert, signedBy } from '../../kube/pki';

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A connection-level failure, with curl's exit code and message. */
export interface HttpFailure {
  curlCode: number;
  message: string;
}

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '0.0.0.0']);

const INTERNET: Record<string, () => string> = {
  'https://download.docker.com/linux/ubuntu/gpg': () => DOCKER_GPG_KEY,
  // `curl -fsSL https://get.docker.com | sudo sh`
  'https://get.docker.com': () => '#!/bin/sh\nset -e\napt-get update -qq >/dev/null\napt-get install -y -qq docker-ce docker-ce-cli containerd.io >/dev/null\n',
  'https://get.docker.com/': () => INTERNET['https://get.docker.com'](),
};

export const DOCKER_GPG_KEY = [
  '-----BEGIN PGP PUBLIC KEY BLOCK-----',
  '',
  'mQINBFit2ioBEADhWpZ8/wvZ6hUTiXOwQHXMAlaFHcPH9hAtr4F1y2+OYdbtMuth',
  'lqqwp028AqyY+PRfVMtSYMbjuQuu5byyKR01BbqYhuS3jtqQmljZ/bJvXqnmiVXh',
  '=0YYh',
  '-----END PGP PUBLIC KEY BLOCK-----',
  '',
].join('\n');

/** The signing key of the Kubernetes package repositories (any minor). */
export const KUBERNETES_RELEASE_KEY = [
  '-----BEGIN PGP PUBLIC KEY BLOCK-----',
  'Version: GnuPG v2.0.15 (GNU/Linux)',
  '',
  'mQENBGMHoXcBCADukGOEQyleViOgtkMVa7hKifP6POCTh+98xNW4TfHK/nBJN2sm',
  'u4XaiUmtB9UuGt9jl8VxQg4hOMRf40coIwHsNwtSrc2R9v5Kgpvcv537QVIigVHH',
  '=Ykrd',
  '-----END PGP PUBLIC KEY BLOCK-----',
  '',
].join('\n');

/** Well-known URLs matched by pattern. */
function internetByPattern(href: string): string | undefined {
  if (/^https:\/\/pkgs\.k8s\.io\/core:\/stable:\/v1\.\d+\/deb\/Release\.key$/.test(href)) return KUBERNETES_RELEASE_KEY;
  return undefined;
}

/** The simulated host a name or address refers to, from `from`'s point of view. */
export function resolveHost(from: SimHost, hostname: string): SimHost | undefined {
  if (LOCAL_NAMES.has(hostname) || hostname === from.address || hostname === from.hostname) return from;
  return from.hooks.resolve(hostname);
}

function isIpAddress(hostname: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The running container publishing host:port, or why it cannot be reached. */
export function connect(from: SimHost, hostname: string, port: number): { host: SimHost; container: DockerContainer } | HttpFailure {
  const target = resolveHost(from, hostname);
  if (!target) {
    return isIpAddress(hostname)
      ? { curlCode: 7, message: `Failed to connect to ${hostname} port ${port}: No route to host` }
      : { curlCode: 6, message: `Could not resolve host: ${hostname}` };
  }
  const docker = target.services.get('docker');
  const container = docker?.active ? target.docker.publishing(port) : undefined;
  if (!container) return { curlCode: 7, message: `Failed to connect to ${hostname} port ${port}: Connection refused` };
  return { host: target, container };
}

const json = (status: number, body: unknown, extra: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { 'Content-Type': 'application/json; charset=utf-8', 'Docker-Distribution-Api-Version': 'registry/2.0', ...extra },
  body: JSON.stringify(body),
});

/** The Docker registry HTTP API v2, as far as health checks and listings go. */
function registryApi(host: SimHost, container: DockerContainer, path: string): HttpResponse {
  const store = host.docker.registryStore(container);
  if (path === '/v2/' || path === '/v2') return json(200, {});
  if (path === '/v2/_catalog') return json(200, { repositories: [...new Set([...store].map((r) => r.slice(0, r.lastIndexOf(':'))))].sort() });
  const tags = /^\/v2\/(.+)\/tags\/list$/.exec(path);
  if (tags) {
    const list = [...store].filter((r) => r.slice(0, r.lastIndexOf(':')) === tags[1]).map((r) => r.slice(r.lastIndexOf(':') + 1));
    if (list.length === 0) return json(404, { errors: [{ code: 'NAME_UNKNOWN', message: 'repository name not known to registry', detail: { name: tags[1] } }] });
    return json(200, { name: tags[1], tags: list });
  }
  return json(404, { errors: [{ code: 'NOT_FOUND', message: '404 page not found' }] });
}

/** What the client sends besides the URL: basic-auth credentials, the CA bundle it trusts (PEM text), -k. */
export interface RequestOptions {
  user?: string;
  cacert?: string;
  insecure?: boolean;
}

/** The file a registry container names in its environment, as its host sees it (through the container's volumes). */
function containerFile(host: SimHost, container: DockerContainer, envName: string): string | undefined {
  const value = container.env.find((e) => e.startsWith(`${envName}=`))?.slice(envName.length + 1);
  if (!value) return undefined;
  for (const v of container.volumes) {
    const [hostPath, containerPath] = v.split(':');
    if (value === containerPath || value.startsWith(`${containerPath}/`)) {
      const p = hostPath + value.slice(containerPath.length);
      const node = host.fs.get(p);
      if (node?.kind === 'file') return node.data.toString('utf8');
    }
  }
  return undefined;
}

const hasEnv = (c: DockerContainer, name: string) => c.env.some((e) => e.startsWith(`${name}=`));

/**
 * A registry with REGISTRY_AUTH=htpasswd wants credentials of a user its
 * htpasswd file lists (the bcrypt hash is not checked); one with
 * REGISTRY_HTTP_TLS_CERTIFICATE speaks TLS only, with that certificate.
 */
async function registryGate(conn: { host: SimHost; container: DockerContainer }, url: URL, opts: RequestOptions): Promise<HttpResponse | HttpFailure | undefined> {
  const tls = hasEnv(conn.container, 'REGISTRY_HTTP_TLS_CERTIFICATE');
  if (url.protocol === 'https:' && !tls) return { curlCode: 35, message: 'error:1408F10B:SSL routines:ssl3_get_record:wrong version number' };
  if (url.protocol === 'http:' && tls) return { status: 400, headers: { 'Content-Type': 'text/plain' }, body: 'Client sent an HTTP request to an HTTPS server.\n' };
  if (tls && !opts.insecure) {
    const cert = containerFile(conn.host, conn.container, 'REGISTRY_HTTP_TLS_CERTIFICATE');
    if (!opts.cacert || (cert && !(await trusts(opts.cacert, cert)))) {
      return { curlCode: 60, message: 'SSL certificate problem: unable to get local issuer certificate\nMore details here: https://curl.se/docs/sslcerts.html' };
    }
  }
  const auth = conn.container.env.find((e) => e.startsWith('REGISTRY_AUTH='))?.slice('REGISTRY_AUTH='.length);
  if (auth === 'htpasswd') {
    const users = (containerFile(conn.host, conn.container, 'REGISTRY_AUTH_HTPASSWD_PATH') ?? '').split('\n').map((l) => l.split(':')[0]).filter(Boolean);
    const user = opts.user?.split(':')[0];
    if (!user || (users.length > 0 && !users.includes(user))) {
      return json(401, { errors: [{ code: 'UNAUTHORIZED', message: 'authentication required', detail: null }] }, { 'WWW-Authenticate': 'Basic realm="Registry Realm"' });
    }
  }
  return undefined;
}

/** Whether a CA bundle (PEM) verifies a server certificate: the certificate itself or its issuer is in it. */
async function trusts(bundle: string, serverPem: string): Promise<boolean> {
  try {
    const server = parseCert(serverPem);
    for (const m of bundle.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)) {
      const ca = parseCert(m[0]);
      if (ca.toString('pem') === server.toString('pem') || (await signedBy(server, ca))) return true;
    }
  } catch {
    /* unparsable: not trusted */
  }
  return false;
}

export async function httpRequest(from: SimHost, rawUrl: string, opts: RequestOptions = {}): Promise<HttpResponse | HttpFailure> {
  let url: URL;
  try {
    url = new URL(/^[a-z]+:\/\//i.test(rawUrl) ? rawUrl : `http://${rawUrl}`);
  } catch {
    return { curlCode: 3, message: `URL using bad/illegal format or missing URL` };
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const known = INTERNET[url.href]?.() ?? INTERNET[rawUrl]?.() ?? internetByPattern(url.href);
  if (known) return { status: 200, headers: { 'Content-Type': 'text/plain' }, body: known };
  const target = resolveHost(from, hostname);
  if (!target && !isIpAddress(hostname) && hostname.includes('.')) {
    // The internet: reachable, nothing interesting there.
    return { status: 200, headers: { 'Content-Type': 'text/html' }, body: '' };
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const conn = connect(from, hostname, port);
  if ('curlCode' in conn) return conn;
  if (isRegistryImage(conn.container.image)) return (await registryGate(conn, url, opts)) ?? registryApi(conn.host, conn.container, url.pathname);
  if (url.protocol === 'https:') {
    return { curlCode: 35, message: 'error:1408F10B:SSL routines:ssl3_get_record:wrong version number' };
  }
  return { status: 200, headers: { 'Content-Type': 'text/html' }, body: '<html><body>OK</body></html>\n' };
}

export const STATUS_TEXT: Record<number, string> = { 200: 'OK', 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 500: 'Internal Server Error' };
