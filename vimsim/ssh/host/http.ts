/**
 * HTTP as seen from a simulated host: localhost and the addresses of other
 * simulated servers reach the containers publishing that port (the Docker
 * registry answers its /v2/ API), anything else is "the internet" — a few
 * well-known URLs answer with plausible content, the rest with an empty 200.
 */
import type { SimHost } from './host';
import { isRegistryImage, type DockerContainer } from './docker';

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

export function httpRequest(from: SimHost, rawUrl: string): HttpResponse | HttpFailure {
  let url: URL;
  try {
    url = new URL(/^[a-z]+:\/\//i.test(rawUrl) ? rawUrl : `http://${rawUrl}`);
  } catch {
    return { curlCode: 3, message: `URL using bad/illegal format or missing URL` };
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const known = INTERNET[url.href] ?? INTERNET[rawUrl];
  if (known) return { status: 200, headers: { 'Content-Type': 'text/plain' }, body: known() };
  const target = resolveHost(from, hostname);
  if (!target && !isIpAddress(hostname) && hostname.includes('.')) {
    // The internet: reachable, nothing interesting there.
    return { status: 200, headers: { 'Content-Type': 'text/html' }, body: '' };
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const conn = connect(from, hostname, port);
  if ('curlCode' in conn) return conn;
  if (url.protocol === 'https:') {
    return { curlCode: 35, message: 'error:1408F10B:SSL routines:ssl3_get_record:wrong version number' };
  }
  if (isRegistryImage(conn.container.image)) return registryApi(conn.host, conn.container, url.pathname);
  return { status: 200, headers: { 'Content-Type': 'text/html' }, body: '<html><body>OK</body></html>\n' };
}

export const STATUS_TEXT: Record<number, string> = { 200: 'OK', 401: 'Unauthorized', 404: 'Not Found', 500: 'Internal Server Error' };
