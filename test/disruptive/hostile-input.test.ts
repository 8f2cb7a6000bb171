/**
 * Hostile callers, part of the hostile-caller suite: no request shape gets a
 * 5xx. For every route with a body in the OpenAPI document, a valid example
 * body has each leaf and each object replaced by each wrong type; every GET
 * route gets odd ids and array query strings. Also: a ~900 kB parameter is
 * accepted quickly and /healthz keeps answering meanwhile (H1), and the
 * field path of a wrong type is named in the 400.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { openApiDocument } from '../../api/openapi';
import { sampleVariant } from '../../samples/variant';
import { readState } from '../harness/state';
import { adminToken, apiUrl, call, onboard, opIdFrom, waitOpState, type Res } from '../support/api';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const EXT_NET = 'f0c82461-36b5-4d86-8322-b0bc19cda65f';
const WRONG: unknown[] = [7, 'str', true, null, ['x', 1], { x: 1 }, 'x'.repeat(10_000)];
const BATCH = 8;

let vnfdId: string;
let pkgId: string;
/** Instantiated (its instantiate op finished): instantiate answers 409 after validation. */
let instantiated: string;
let instantiateOp: string;
/** NOT_INSTANTIATED: terminate/heal/scale/change_vnfpkg answer 409 after validation. */
let fresh: string;
let vimId: string;
/** A Magnum cluster template of this test; NO_SUCH: a uuid that names nothing. */
let templateId: string;
const NO_SUCH = crypto.randomUUID();

const instantiateBody = () => ({
  flavourId: 'simple',
  instantiationLevelId: 'instantiation_level_1',
  extVirtualLinks: [{ id: 'net0', resourceId: EXT_NET, extCps: [{ cpdId: 'VDU1_CP1', cpConfig: [{ cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] }] }, { cpdId: 'VDU2_CP1' }] }],
  vimConnectionInfo: [{
    id: 'vim1', vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3', interfaceInfo: { endpoint: readState().keystoneUrl },
    accessInfo: { username: 'admin', password: readState().adminPassword, project: 'admin', projectDomain: 'Default', userDomain: 'Default', region: 'RegionOne' },
  }],
  additionalParams: {
    note: 'hostile',
    private_registry_installation_param: { ssh_cp_name: 'VDU1_CP1', ssh_username: 'ubuntu', ssh_password: 'pw', port_no: '5000', proxy: { http_proxy: 'http://u:p@proxy:3128', no_proxy: '10.0.0.1' } },
  },
});

const vnfcParam = () => ({
  cp_name: 'VDU1_CP1', username: 'ubuntu', password: 'pw', endpoint: 'https://em.example:8443', timeout: 60,
  authentication: { authType: ['BASIC'], paramsBasic: { userName: 'em', password: 'em-pw' } },
});

/** A valid body per (method, OpenAPI path). */
function exampleBody(method: string, p: string): unknown {
  const task = p.split('/').pop();
  if (p === '/vnfpkgm/v1/vnf_packages') return { userDefinedData: { owner: 'hostile' } };
  if (p === '/vnfpkgm/v1/vnf_packages/{vnfPkgId}') return { operationalState: 'ENABLED', userDefinedData: { owner: 'hostile' } };
  if (p.endsWith('/vnf_instances')) return { vnfdId, vnfInstanceName: 'hostile', vnfInstanceDescription: 'd', metadata: { k: 'v' } };
  if (task === 'instantiate') return instantiateBody();
  if (task === 'terminate') return { terminationType: 'GRACEFUL', gracefulTerminationTimeout: 1, additionalParams: { a: 'b' } };
  if (task === 'heal') return { vnfcInstanceId: ['vnfc-1'], cause: 'c', additionalParams: { a: 'b' } };
  if (task === 'scale') return { type: 'SCALE_OUT', aspectId: 'VDU1_aspect', numberOfSteps: 1, additionalParams: { a: 'b' } };
  if (task === 'cancel') return { cancelMode: 'GRACEFUL' };
  if (task === 'change_vnfpkg') {
    return {
      vnfdId, vimConnectionInfo: [{ vimType: 'openstack', accessInfo: { username: 'u', password: 'p' } }],
      additionalParams: {
        upgrade_type: 'RollingUpdate', 'lcm-operation-coordinate-new-vnf': 'Scripts/c.py',
        vdu_params: [{ vdu_id: 'VDU1', old_vnfc_param: vnfcParam(), new_vnfc_param: vnfcParam() }],
        external_lb_param: { ip_address: '10.0.0.1', username: 'lb', password: 'lb-pw' },
      },
    };
  }
  if (p.endsWith('/vnf_instances/{vnfInstanceId}') && method === 'patch') {
    return { vnfInstanceName: 'hostile', vnfInstanceDescription: 'd', metadata: { k: 'v' }, extensions: { e: { f: 1 } }, vnfConfigurableProperties: { p: 'q' } };
  }
  if (task === 'change_ext_conn') return { extVirtualLinks: instantiateBody().extVirtualLinks, additionalParams: { a: 'b' } };
  if (p.endsWith('/subscriptions')) {
    // the callback refuses the test GET (nothing listens on port 9): a valid body is a 400 too, never a 5xx
    return {
      callbackUri: 'http://127.0.0.1:9/notify',
      filter: { vnfInstanceSubscriptionFilter: { vnfdIds: [vnfdId] }, notificationTypes: ['VnfLcmOperationOccurrenceNotification'], operationTypes: ['INSTANTIATE'], operationStates: ['COMPLETED'] },
      authentication: { authType: ['BASIC'], paramsBasic: { userName: 'u', password: 'p' } },
    };
  }
  if (p === '/v1.0/vims' && method === 'post') {
    // no is_default: `true` is a valid variant and would repoint the project's default VIM
    return { vim: { name: `hostile-${crypto.randomUUID()}`, type: 'openstack', auth_url: readState().keystoneUrl, auth_cred: { username: 'admin', password: readState().adminPassword }, vim_project: { name: 'admin' } } };
  }
  if (p === '/v1.0/vims/{vimId}') return { vim: { name: 'hostile-renamed', description: 'd', extra: { a: 1 } } };
  // Magnum: a template is cheap and is made for real; every cluster route names a cluster that does not exist
  // (Magnum looks a cluster up before it reads the body: 404) or, to create one, a template that does not exist
  if (p === '/v1/clustertemplates') {
    return { name: 'hostile-template', coe: 'kubernetes', image_id: 'ubuntu-22.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.small', network_driver: 'flannel', labels: { a: 'b' }, docker_volume_size: 5, tls_disabled: false };
  }
  if (p === '/v1/clustertemplates/{ident}') return [{ op: 'replace', path: '/name', value: 'hostile-renamed' }, { op: 'add', path: '/labels/x', value: 'y' }];
  if (p === '/v1/clusters') return { name: 'hostile', cluster_template_id: NO_SUCH, node_count: 1, master_count: 1, create_timeout: 60, keypair: 'k', labels: { a: 'b' }, merge_labels: true };
  if (p === '/v1/clusters/{ident}') return [{ op: 'replace', path: '/node_count', value: 2 }];
  if (task === 'resize') return { node_count: 2, nodes_to_remove: ['server-1'], nodegroup: 'default-worker' };
  if (task === 'upgrade') return { cluster_template: NO_SUCH, max_batch_size: 1, nodegroup: 'default-worker' };
  if (p === '/v1/clusters/{cluster}/nodegroups') return { name: 'ng', node_count: 1, flavor_id: 'm1.small', min_node_count: 0, max_node_count: 3, labels: { a: 'b' }, node_taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] };
  if (p === '/v1/clusters/{cluster}/nodegroups/{nodegroup}') return [{ op: 'replace', path: '/max_node_count', value: 3 }];
  if (p === '/v1/certificates') return { cluster_uuid: NO_SUCH, csr: '-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n' };
  if (p === '/v1/quotas') return { project_id: crypto.randomBytes(16).toString('hex'), resource: 'Cluster', hard_limit: 5 };
  throw new Error(`no example body for ${method} ${p}`);
}

/** Concrete path for an OpenAPI path template. */
function concrete(p: string, idFor?: (param: string) => string): string {
  return p.replace(/\{(\w+)\}/g, (_m, param: string) => (idFor ? idFor(param) : ({
    vnfPkgId: pkgId, vimId, vnfLcmOpOccId: instantiateOp,
    vnfInstanceId: /instantiate$/.test(p) ? instantiated : fresh,
    ident: p.startsWith('/v1/clustertemplates/') ? templateId : NO_SUCH, cluster: NO_SUCH,
  } as Record<string, string>)[param] ?? NO_SUCH));
}

/** The headers a path's API takes: SOL003 v2's Version, Magnum's latest microversion. */
const headersFor = (p: string): Record<string, string> => (p.startsWith('/vnflcm/v2') ? { Version: '2.0.0' } : p.startsWith('/v1/') ? { 'OpenStack-API-Version': 'container-infra latest' } : {});

/** Every variant of `body`: each leaf and each object (the root included) replaced by each wrong type. */
function variants(body: unknown): { where: string; body: unknown }[] {
  const out: { where: string; body: unknown }[] = [];
  const visit = (node: unknown, at: (string | number)[]) => {
    for (const w of WRONG) out.push({ where: `${at.join('.') || '(body)'} <- ${JSON.stringify(w).slice(0, 20)}`, body: replaceAt(body, at, w) });
    if (Array.isArray(node)) node.forEach((x, i) => visit(x, [...at, i]));
    else if (node && typeof node === 'object') for (const [k, x] of Object.entries(node)) visit(x, [...at, k]);
  };
  visit(body, []);
  return out;
}

function replaceAt(v: unknown, at: (string | number)[], w: unknown): unknown {
  if (!at.length) return w;
  const [k, ...rest] = at;
  const copy: any = Array.isArray(v) ? [...v] : { ...(v as object) };
  copy[k] = replaceAt(copy[k], rest, w);
  return copy;
}

/** Runs the requests in small concurrent batches; returns those answered with a 5xx (or not at all). */
async function fiveHundreds(reqs: { label: string; send: () => Promise<Res> }[]): Promise<string[]> {
  const bad: string[] = [];
  for (let i = 0; i < reqs.length; i += BATCH) {
    await Promise.all(reqs.slice(i, i + BATCH).map(async (r) => {
      try {
        let res = await r.send();
        // The shared machine's Keystone sometimes cannot check a token in time (503, not about the input): ask again.
        for (let retry = 0; retry < 3 && res.status === 503 && /identity service/.test(res.text); retry++) {
          await new Promise((ok) => setTimeout(ok, 1000));
          res = await r.send();
        }
        if (res.status >= 500) bad.push(`${r.label}: ${res.status} ${res.text.slice(0, 200)}`);
      } catch (e) {
        bad.push(`${r.label}: no answer (${(e as Error).message})`);
      }
    }));
  }
  return bad;
}

beforeAll(async () => {
  const pkg = await onboard(sampleVariant(SAMPLE).zip); // a vnfdId of its own: a project onboards one once
  expect(pkg.onboardingState).toBe('ONBOARDED');
  ({ id: pkgId, vnfdId } = pkg);
  const mk = async () => (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId, vnfInstanceName: 'hostile' })).body.id as string;
  instantiated = await mk();
  fresh = await mk();
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${instantiated}/instantiate`, { ...instantiateBody(), vimConnectionInfo: undefined });
  expect(r.status).toBe(202);
  instantiateOp = opIdFrom(r);
  expect((await waitOpState(instantiateOp, ['COMPLETED', 'FAILED_TEMP'], 90_000)).operationState).toBe('COMPLETED');
  const vim = await call('POST', '/v1.0/vims', exampleBody('post', '/v1.0/vims'));
  expect(vim.status).toBe(201);
  vimId = vim.body.vim.id;
  const template = await call('POST', '/v1/clustertemplates', exampleBody('post', '/v1/clustertemplates'), headersFor('/v1/'));
  expect(template.status).toBe(201);
  templateId = template.body.uuid;
}, 180_000);

type Paths = Record<string, Record<string, { requestBody?: unknown }>>;
const routes = () => Object.entries((openApiDocument() as { paths: Paths }).paths);

test('every route with a body: each field and object of a valid body replaced by each wrong type answers < 500', async () => {
  const reqs: { label: string; send: () => Promise<Res> }[] = [];
  let routesWithBody = 0;
  for (const [p, ops] of routes()) {
    for (const [method, op] of Object.entries(ops)) {
      if (!op.requestBody) continue;
      routesWithBody++;
      const headers = headersFor(p);
      for (const v of variants(exampleBody(method, p))) {
        reqs.push({ label: `${method.toUpperCase()} ${p} ${v.where}`, send: () => call(method.toUpperCase(), concrete(p), v.body, headers) });
      }
    }
  }
  expect(routesWithBody).toBeGreaterThanOrEqual(20);
  expect(reqs.length).toBeGreaterThan(800);
  expect(reqs.length).toBeLessThan(5000);
  expect(await fiveHundreds(reqs)).toEqual([]);
}, 600_000);

test('every GET route: odd ids and array query strings answer < 500', async () => {
  const oddIds = ['x'.repeat(5000), '%00', 'a%00b', '%E2%98%83%F0%9F%92%A5', '..%2F..%2Fetc', '%ZZ', '%C0%AF', ' ', '%20'];
  const queries = ['?filter=a&filter=b', '?all_projects[]=x', '?all_projects=true&all_projects=false', '?filter[x]=1', '?filter=(eq,id,a)&id=1&id=2',
    '?operationState=a&operationState=b', '?vnfInstanceId[]=x', '?name=a&name=b', '?id[a]=b', `?filter=${'('.repeat(2000)}`];
  const reqs: { label: string; send: () => Promise<Res> }[] = [];
  for (const [p, ops] of routes()) {
    if (!ops.get) continue;
    const headers = headersFor(p);
    for (const q of queries) reqs.push({ label: `GET ${p}${q}`, send: () => call('GET', `${concrete(p)}${q}`, undefined, headers) });
    if (!p.includes('{')) continue;
    for (const id of oddIds) reqs.push({ label: `GET ${p} id=${id.slice(0, 20)}`, send: () => call('GET', concrete(p, () => id), undefined, headers) });
  }
  expect(reqs.length).toBeGreaterThan(50);
  expect(await fiveHundreds(reqs)).toEqual([]);
}, 300_000);

test('wrong types are 400s naming the field path (ProblemDetails; TackerError on /v1.0)', async () => {
  const inst = `/vnflcm/v1/vnf_instances/${instantiated}/instantiate`;
  const withAccess = (accessInfo: unknown) => ({ ...instantiateBody(), vimConnectionInfo: [{ ...instantiateBody().vimConnectionInfo[0], accessInfo }] });
  const numericPassword = await call('POST', inst, withAccess({ username: 'admin', password: 12345 }));
  expect(numericPassword.status).toBe(400);
  expect(numericPassword.body.detail).toContain('vimConnectionInfo[0].accessInfo.password');
  const objectUser = await call('POST', inst, withAccess({ username: { a: 1 }, password: 'p' }));
  expect(objectUser.status).toBe(400);
  expect(objectUser.body.detail).toContain('vimConnectionInfo[0].accessInfo.username');
  const arrayName = await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId, vnfInstanceName: ['a'] });
  expect(arrayName.status).toBe(400);
  expect(arrayName.body.detail).toContain('vnfInstanceName');
  // nested 100k deep: refused, not a stack overflow
  const deep = `{"flavourId":"simple","additionalParams":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
  const d = await call('POST', inst, deep);
  expect(d.status).toBe(400);
  expect(d.body.detail).toMatch(/deeper than 64 levels/);
  const vim = await call('POST', '/v1.0/vims', { vim: { ...(exampleBody('post', '/v1.0/vims') as any).vim, auth_cred: { username: 'admin', password: 12345 } } });
  expect(vim.status).toBe(400);
  expect(vim.body.TackerError.message).toContain('vim.auth_cred.password');
  expect((await call('POST', '/v1.0/vims', '{"vim":')).status).toBe(400);
});

test('NUL characters (which PostgreSQL cannot store or compare) are 400s wherever they come: a string, a key, the URL', async () => {
  const nulName = await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId, vnfInstanceName: 'a\u0000b' });
  expect([nulName.status, nulName.body.detail]).toEqual([400, 'the JSON body holds a NUL character (\\u0000) at $.vnfInstanceName; no field takes one']);
  const nulKey = await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId, metadata: { 'k\u0000': 'v' } });
  expect(nulKey.status).toBe(400);
  expect(nulKey.body.detail).toContain('$.metadata');
  const vims = await call('GET', '/v1.0/vims/a%00b');
  expect([vims.status, vims.body.TackerError?.type]).toEqual([400, 'BadRequest']);
  expect((await call('GET', '/vnflcm/v1/vnf_instances?vnfInstanceName=%00')).status).toBe(400);
  // positive control: the same request without the NUL is taken
  expect((await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId, vnfInstanceName: 'ab' })).status).toBe(201);
});

test('a ~900 kB parameter is accepted quickly and /healthz keeps answering meanwhile (H1)', async () => {
  const id = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId, vnfInstanceName: 'big-param' })).body.id;
  const body = { ...instantiateBody(), vimConnectionInfo: undefined, additionalParams: { x: 'a.'.repeat(225_000) + 'http://a:'.repeat(50_000) } };
  expect(JSON.stringify(body).length).toBeGreaterThan(850_000);
  expect(JSON.stringify(body).length).toBeLessThan(1_000_000);
  let done = false;
  const health: number[] = [];
  const probe = (async () => {
    while (!done) {
      const t = Date.now();
      const r = await fetch(`${apiUrl()}/healthz`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
      health.push(r?.ok ? Date.now() - t : Infinity);
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
  const t0 = Date.now();
  // bounded: with a quadratic redaction the API would not answer for minutes
  const r = await fetch(`${apiUrl()}/vnflcm/v1/vnf_instances/${id}/instantiate`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-auth-token': await adminToken() }, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000),
  }).catch((e: Error) => ({ status: 0, statusText: e.message, headers: new Headers() }));
  const took = Date.now() - t0;
  done = true;
  await probe;
  expect([r.status, r.statusText]).toEqual([202, 'Accepted']);
  expect(took).toBeLessThan(10_000); // the old quadratic redaction took minutes here
  expect(health.length).toBeGreaterThan(0);
  expect(Math.max(...health)).toBeLessThan(3_000);
  const op = (await call('GET', `/vnflcm/v1/vnf_lcm_op_occs/${String(r.headers.get('location')).split('/').pop()}`)).body;
  expect(op.operationParams.additionalParams.x.length).toBeGreaterThan(850_000);
}, 120_000);
