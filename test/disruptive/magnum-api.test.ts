/**
 * Magnum's API (seed 003) against the running product, the real Keystone
 * and Heat and the simulated cloud: discovery and microversions, the error
 * shape, templates with their VIM checks and public/hidden rules, clusters
 * whose operations fail where the cloud is made to fail (a Nova fault, a
 * node step, create_timeout) with status_reason naming the step and the
 * node, refusals answered at once, certificates, quotas, stats, services,
 * and CADF notifications delivered to a webhook across a worker kill -9.
 */
import http from 'node:http';
import { addFault, addSshFault, call, clearFaults, eventually, UNTIL_CLEARED } from '../support/api';
import { HeatClient } from '../../infra/openstack/heat';
import { magnumStackName } from '../../ops/magnum/shared/contracts';
import { keystoneUser, type TestUser } from '../support/identity';
import { detail, LATEST, mcall, templateBody, waitStatus } from '../support/magnum';
import { opensslCsr } from '../support/openssl';
import { killWorker, restartWorker } from '../support/worker-control';

const run = Date.now().toString(36);
let member: TestUser;
let memberHeaders: Record<string, string>;
let template: any;

beforeAll(async () => {
  member = await keystoneUser(`magnum-${run}`, `magnum-user-${run}`, 'member');
  memberHeaders = await member.headers(LATEST);
  const t = await mcall('POST', '/v1/clustertemplates', templateBody(`tpl-${run}`, { labels: { kube_tag: 'v1.37.2' } }), memberHeaders);
  expect([t.status, detail(t)]).toEqual([201, expect.any(String)]);
  template = t.body;
});
afterEach(async () => {
  await clearFaults();
  await clearFaults();
});

/** A cluster of the member's, created from the shared template; its uuid. */
async function createCluster(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await mcall('POST', '/v1/clusters', { cluster_template_id: template.uuid, name, node_count: 1, master_count: 1, ...extra }, memberHeaders);
  expect([r.status, detail(r)]).toEqual([202, JSON.stringify({ uuid: r.body?.uuid })]);
  expect(Object.keys(r.body)).toEqual(['uuid']); // Tempest: nothing else, no status
  return r.body.uuid;
}

describe('discovery, versions and errors', () => {
  it('GET / and GET /v1 need no token; every /v1 answer has the version headers and a request id', async () => {
    const root = await call('GET', '/', undefined, { 'x-auth-token': '' });
    expect(root.body.versions.map((v: any) => v.id)).toEqual(['v1', 'v1.0']);
    expect(root.body.versions[0]).toMatchObject({ status: 'CURRENT', min_version: '1.1', max_version: '1.14' });
    const v1 = await call('GET', '/v1', undefined, { 'x-auth-token': '' });
    expect(v1.body.id).toBe('v1');
    expect(v1.body.clusters.map((l: any) => l.rel)).toEqual(['self', 'bookmark']);
    expect(v1.headers.get('openstack-api-version')).toBe('container-infra 1.1');
    expect(v1.headers.get('openstack-api-maximum-version')).toBe('container-infra 1.14');
    expect(v1.headers.get('x-openstack-request-id')).toMatch(/^req-[0-9a-f-]{36}$/);
  });
  it('a version out of range is 406 with Magnum\'s fields; a bad service name 406', async () => {
    const r = await mcall('GET', '/v1/clusters', undefined, { 'OpenStack-API-Version': 'container-infra 1.99' });
    expect(r.status).toBe(406);
    expect(r.body.errors[0]).toMatchObject({ code: 'magnum.microversion-unsupported', min_version: '1.1', max_version: '1.14', status: 406 });
    const s = await mcall('GET', '/v1/clusters', undefined, { 'OpenStack-API-Version': 'compute 2.1' });
    expect([s.status, detail(s)]).toEqual([406, 'Invalid service type for OpenStack-API-Version header']);
  });
  it('methods gated above the version asked for are 406; 401 keeps keystonemiddleware\'s shape', async () => {
    const r = await mcall('POST', `/v1/clusters/${crypto.randomUUID()}/actions/resize`, { node_count: 2 }, { 'OpenStack-API-Version': 'container-infra 1.6' });
    expect([r.status, detail(r)]).toEqual([406, 'Version 1.6 was requested but the requested API resize is not supported for this version.']);
    const n = await mcall('GET', `/v1/clusters/${crypto.randomUUID()}/nodegroups`, undefined, { 'OpenStack-API-Version': 'container-infra 1.8' });
    expect(n.status).toBe(406);
    const u = await call('GET', '/v1/clusters', undefined, { 'x-auth-token': '' });
    expect(u.status).toBe(401);
    expect(u.body.error).toMatchObject({ code: 401, title: 'Unauthorized' });
    // Tacker's /v1.0 keeps its own error shape
    expect(Object.keys((await call('GET', '/v1.0/vims/nope')).body)).toEqual(['TackerError']);
  });
  it('errors are {"errors": [...]}, title the first sentence; trailing slashes are routed', async () => {
    const r = await mcall('GET', '/v1/clusters/k8s-missing/');
    expect(r.status).toBe(404);
    expect(r.body.errors[0]).toEqual({ request_id: r.headers.get('x-openstack-request-id'), code: 'client', status: 404, title: 'Cluster k8s-missing could not be found', detail: 'Cluster k8s-missing could not be found.', links: [] });
    expect((await mcall('GET', '/v1/clusters/?limit=2')).status).toBe(200);
  });
});

describe('cluster templates', () => {
  it('are checked against the VIM: image (with os_distro), flavors and networks, with Magnum\'s codes', async () => {
    const bad = async (extra: Record<string, unknown>) => mcall('POST', '/v1/clustertemplates', templateBody(`bad-${run}`, extra), memberHeaders);
    expect(detail(await bad({ image_id: 'no-such-image' }))).toBe('Image no-such-image could not be found.');
    expect((await bad({ flavor_id: 'aaa' })).status).toBe(400);
    expect(detail(await bad({ external_network_id: `net-${run}` }))).toBe(`Unable to find external network net-${run}.`);
    expect(detail(await bad({ fixed_network: `net-${run}` }))).toBe(`Unable to find fixed network net-${run}.`);
    expect(detail(await bad({ network_driver: 'weave' }))).toMatch(/^Network driver type weave is not supported/);
    expect((await bad({ volume_driver: 'rexray' })).status).toBe(400);
    expect(detail(await bad({ coe: 'swarm' }))).toMatch(/coe\. Value: 'swarm'\. Value should be one of: kubernetes/);
    expect((await bad({ keypair_id: `random-${run}` })).status).toBe(201); // Magnum does not check a template's key pair
  });
  it('PATCH takes the client\'s Python-literal labels; a template in use keeps all but name, tags, hidden and publication', async () => {
    const t = (await mcall('POST', '/v1/clustertemplates', templateBody(`patch-${run}`), memberHeaders)).body;
    const p = await mcall('PATCH', `/v1/clustertemplates/${t.uuid}`, [{ op: 'replace', path: '/labels', value: "{'kube_tag': 'v1.37.2', 'x': 'y'}" }, { op: 'add', path: '/tags', value: 'a,b' }], memberHeaders);
    expect([p.status, p.body.labels, p.body.tags]).toEqual([200, { kube_tag: 'v1.37.2', x: 'y' }, 'a,b']);
    const pub = await mcall('PATCH', `/v1/clustertemplates/${t.uuid}`, [{ op: 'replace', path: '/public', value: true }], memberHeaders);
    expect([pub.status, detail(pub)]).toEqual([403, 'Not authorized to set public or hidden flag for cluster template.']);
    expect((await mcall('PATCH', `/v1/clustertemplates/${t.uuid}`, { op: 'replace' }, memberHeaders)).status).toBe(400);
    const inUse = await createCluster(`inuse-${run}`, { cluster_template_id: t.uuid });
    const renamed = await mcall('PATCH', `/v1/clustertemplates/${t.uuid}`, [{ op: 'replace', path: '/name', value: `renamed-${run}` }], memberHeaders);
    expect(renamed.status).toBe(200);
    const flavor = await mcall('PATCH', `/v1/clustertemplates/${t.uuid}`, [{ op: 'replace', path: '/flavor_id', value: 'm1.medium' }], memberHeaders);
    expect([flavor.status, detail(flavor)]).toEqual([400, `ClusterTemplate ${t.uuid} is referenced by one or multiple clusters.`]);
    expect(detail(await mcall('DELETE', `/v1/clustertemplates/${t.uuid}`, undefined, memberHeaders))).toMatch(/is referenced by one or multiple clusters/);
    await mcall('DELETE', `/v1/clusters/${inUse}`, undefined, memberHeaders);
    await waitStatus(inUse, ['GONE'], 120_000, memberHeaders);
    expect((await mcall('DELETE', `/v1/clustertemplates/renamed-${run}`, undefined, memberHeaders)).status).toBe(204);
  });
  it('public and hidden are for admins; a name that matches several is 409', async () => {
    expect((await mcall('POST', '/v1/clustertemplates', templateBody(`pub-${run}`, { public: true }), memberHeaders)).status).toBe(403);
    const pub = await mcall('POST', '/v1/clustertemplates', templateBody(`pub-${run}`, { public: true }));
    expect([pub.status, pub.body.public]).toEqual([201, true]);
    expect((await mcall('GET', `/v1/clustertemplates/${pub.body.uuid}`, undefined, memberHeaders)).status).toBe(200);
    await mcall('POST', '/v1/clustertemplates', templateBody(`pub-${run}`), memberHeaders);
    const twice = await mcall('GET', `/v1/clustertemplates/pub-${run}`, undefined, memberHeaders);
    expect([twice.status, detail(twice)]).toEqual([409, 'Multiple ClusterTemplates exist with same name. Please use the clustertemplate uuid instead.']);
    const hidden = await mcall('PATCH', `/v1/clustertemplates/${pub.body.uuid}`, [{ op: 'replace', path: '/hidden', value: true }]);
    expect(hidden.body.hidden).toBe(true);
    expect((await mcall('GET', `/v1/clustertemplates/${pub.body.uuid}`, undefined, memberHeaders)).status).toBe(404);
    expect((await mcall('POST', '/v1/clusters', { cluster_template_id: pub.body.uuid }, memberHeaders)).status).toBe(403);
  });
});

describe('clusters', () => {
  it('refuse what Magnum refuses, at once', async () => {
    const post = (body: Record<string, unknown>, h = memberHeaders) => mcall('POST', '/v1/clusters', { cluster_template_id: template.uuid, ...body }, h);
    expect(detail(await post({ master_count: 2, master_lb_enabled: true }))).toBe('master nodegroup size of 2 is invalid, size cannot be an even number.');
    expect(detail(await post({ master_count: 3 }))).toBe('master_count must be 1 when master_lb_enabled is False');
    expect(detail(await post({ keypair: `nope-${run}` }))).toBe(`Unable to find keypair nope-${run}.`);
    expect((await post({ keypair: `nope-${run}` })).status).toBe(404);
    expect((await post({ flavor_id: 'aaa' })).status).toBe(400);
    expect((await post({ name: '1bad' })).status).toBe(400);
    expect((await post({ foo: 1 })).status).toBe(400);
    const unknown = { cluster_template_id: crypto.randomUUID() };
    expect((await mcall('POST', '/v1/clusters', unknown, await member.headers())).status).toBe(400); // 1.1: ct_not_found_to_bad_request
    expect((await mcall('POST', '/v1/clusters', unknown, memberHeaders)).status).toBe(404);
    expect(detail(await post({ node_count: 0 }, await member.headers()))).toBe('Resizing a nodegroup to zero is not supported in the provided microversion.');
  });

  it('a node step that fails: CREATE_FAILED naming the step and the node; faults per nodegroup; busy-state refusals; delete', async () => {
    await addSshFault({ match: 'swapoff', exitCode: 1, stderr: 'swapoff: /swap.img: swapoff failed: Operation not permitted', times: 10 });
    const id = await createCluster(`steps-${run}`);
    const failed = await waitStatus(id, ['CREATE_FAILED'], 120_000, memberHeaders);
    // every node failed its first step: the reason names each, and each nodegroup's fault its own node
    expect(failed.status_reason).toMatch(/^Step "install Kubernetes" failed: (2 nodes failed: )?prepare on (master|worker) steps-\S+ \(127\.\d+\.\d+\.\d+\): .*swapoff/);
    expect(failed.faults['default-master']).toMatch(/prepare on master steps-\S+-default-master-0 \(127\./);
    expect(failed.faults['default-worker']).toMatch(/prepare on worker steps-\S+-default-worker-0 \(127\./);
    expect(failed.api_address).toMatch(/^https:\/\/127\.\d+\.\d+\.\d+:6443$/);
    expect(failed.master_addresses).toHaveLength(1);
    expect(failed.node_addresses).toHaveLength(1);
    // on the shared default VIM the stack is the member's project's, made as the member through their trust (issue 22 item 1)
    const memberHeat = new HeatClient(member.session);
    const stack = await memberHeat.findStack(magnumStackName(id)) as any;
    expect([stack.stack_owner, stack.links[0].href]).toEqual([member.name, expect.stringContaining(`/v1/${member.projectId}/stacks/`)]);
    const ngs = (await mcall('GET', `/v1/clusters/${id}/nodegroups/`, undefined, memberHeaders)).body.nodegroups;
    expect(ngs.map((g: any) => [g.name, g.role, g.is_default, g.status])).toEqual([
      ['default-master', 'master', true, 'CREATE_FAILED'], ['default-worker', 'worker', true, 'CREATE_FAILED'],
    ]);
    expect((await mcall('GET', `/v1/clusters/${id}/nodegroups?role=master`, undefined, memberHeaders)).body.nodegroups).toHaveLength(1);
    // refusals answered at once, not a 202 that only logs them
    const upd = await mcall('PATCH', `/v1/clusters/${id}`, [{ op: 'replace', path: '/node_count', value: 2 }], memberHeaders);
    expect([upd.status, detail(upd)]).toEqual([409, 'Updating a cluster when status is "CREATE_FAILED" is not supported.']);
    const name = await mcall('PATCH', `/v1/clusters/${id}`, [{ op: 'replace', path: '/name', value: 'x' }], memberHeaders);
    expect([name.status, detail(name)]).toEqual([400, 'cannot change cluster property(ies) name.']);
    expect((await mcall('POST', `/v1/clusters/${id}/actions/resize`, { node_count: 2 }, memberHeaders)).status).toBe(409);
    expect(detail(await mcall('POST', `/v1/clusters/${id}/actions/resize`, { node_count: 1, nodegroup: 'default-master' }, memberHeaders))).toBe('Resizing the master nodegroup is not supported by this driver.');
    expect((await mcall('PATCH', `/v1/certificates/${id}`, undefined, memberHeaders)).status).toBe(400);
    expect(detail(await mcall('DELETE', `/v1/clusters/${id}/nodegroups/default-worker`, undefined, memberHeaders))).toBe('Deleting a default nodegroup is not supported.');
    // the cluster's CA exists from the create's first step: show and sign
    const ca = await mcall('GET', `/v1/certificates/${id}`, undefined, memberHeaders);
    expect(ca.body.pem).toMatch(/^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----$/);
    const { csrPem } = opensslCsr('/CN=admin/O=system:masters');
    const signed = await mcall('POST', '/v1/certificates', { cluster_uuid: id, csr: csrPem }, memberHeaders);
    expect([signed.status, signed.body.pem]).toEqual([201, expect.stringMatching(/^-----BEGIN CERTIFICATE-----/)]);
    // etcd's and the front proxy's CAs sign for the cloud's admins only (their certificates pass by RBAC and audit)
    for (const type of ['etcd', 'front_proxy']) {
      const refused = await mcall('POST', '/v1/certificates', { cluster_uuid: id, csr: csrPem, ca_cert_type: type }, memberHeaders);
      expect([refused.status, detail(refused)]).toEqual([403, `Policy doesn't allow certificate:create with ca_cert_type ${type} to be performed.`]);
    }
    expect((await mcall('POST', '/v1/certificates', { cluster_uuid: id, csr: csrPem, ca_cert_type: 'etcd' })).status).toBe(201); // the admin
    expect((await mcall('POST', '/v1/certificates', { cluster_uuid: id, csr: 'not a csr' }, memberHeaders)).status).toBe(400);
    expect((await mcall('POST', '/v1/certificates', { cluster_uuid: crypto.randomUUID(), csr: csrPem }, memberHeaders)).status).toBe(400);
    expect((await mcall('DELETE', `/v1/clusters/${id}`, undefined, memberHeaders)).status).toBe(204);
    await waitStatus(id, ['GONE'], 120_000, memberHeaders);
    expect((await mcall('GET', `/v1/certificates/${id}`, undefined, memberHeaders)).status).toBe(404);
  });

  it('a cloud fault: Heat\'s reason names the nodegroup\'s server; the other nodegroup is not in doubt', async () => {
    await addFault({ target: 'server', operation: 'create', mode: 'fail', match: 'default-worker', times: UNTIL_CLEARED });
    const id = await createCluster(`cloud-${run}`);
    const failed = await waitStatus(id, ['CREATE_FAILED'], 240_000, memberHeaders);
    expect(failed.status_reason).toMatch(/^Step "create the stack" failed: stack magnum-\S+ CREATE_FAILED: .*resources\.default-worker-0.*No valid host was found/);
    expect(failed.faults['default-worker']).toMatch(/resources\.default-worker-0/);
    expect(failed.faults['default-master']).toBe('not completed: default-worker failed');
    expect((await mcall('POST', `/v1/clusters/${id}/nodegroups`, { name: 'extra' }, memberHeaders)).status).toBe(409); // no API address yet
    await clearFaults();
    await mcall('DELETE', `/v1/clusters/${id}`, undefined, memberHeaders);
    await waitStatus(id, ['GONE'], 180_000, memberHeaders);
  });

  it('waits for the control-plane images while its machines cannot pull them: status_reason says so, then CREATE_COMPLETE', async () => {
    // as on a fresh `npm start` whose Kubernetes toolchain is still building, or behind a registry that does not serve them yet
    await addFault({ target: 'image', operation: 'pull', mode: 'hang', match: `images-${run}`, times: UNTIL_CLEARED });
    const id = await createCluster(`images-${run}`);
    const waiting = await eventually('the wait in status_reason', async () => {
      const c = (await mcall('GET', `/v1/clusters/${id}`, undefined, memberHeaders)).body;
      return /^waiting for the control-plane images/.test(c.status_reason ?? '') ? c : undefined;
    }, 240_000, 1000);
    expect(waiting.status).toBe('CREATE_IN_PROGRESS');
    expect(waiting.status_reason).toMatch(/^waiting for the control-plane images on master images-\S+-default-master-0 \(127\.[\d.]+\): failed to pull image registry\.k8s\.io\/kube-apiserver:v1\.37\.2: .*does not serve/);
    await new Promise((r) => setTimeout(r, 3000));
    expect((await mcall('GET', `/v1/clusters/${id}`, undefined, memberHeaders)).body.status).toBe('CREATE_IN_PROGRESS'); // waiting, not failing
    await clearFaults();
    const done = await waitStatus(id, ['CREATE_COMPLETE'], 300_000, memberHeaders);
    expect(done.status_reason ?? '').not.toMatch(/waiting/);
    await mcall('DELETE', `/v1/clusters/${id}`, undefined, memberHeaders);
    await waitStatus(id, ['GONE'], 180_000, memberHeaders);
  }, 600_000);

  it('create_timeout is enforced by the workflow: CREATE_FAILED with the reason', async () => {
    await addFault({ target: 'server', operation: 'create', mode: 'hang', match: `timeout-${run}`, times: UNTIL_CLEARED });
    const id = await createCluster(`timeout-${run}`, { create_timeout: 1 });
    expect((await mcall('GET', `/v1/clusters/${id}`, undefined, memberHeaders)).body.status).toBe('CREATE_IN_PROGRESS');
    const failed = await waitStatus(id, ['CREATE_FAILED'], 150_000, memberHeaders);
    expect(failed.status_reason).toBe('Step "create the stack" failed: create_timeout of 1 minute(s) reached during the stack create');
    await clearFaults();
    await mcall('DELETE', `/v1/clusters/${id}`, undefined, memberHeaders);
    await waitStatus(id, ['GONE'], 180_000, memberHeaders);
  }, 300_000);
});

describe('quotas, stats and services', () => {
  it('an admin sets a project\'s cluster quota; beyond it a create is 403 with Magnum\'s text', async () => {
    const have = (await mcall('GET', '/v1/stats', undefined, memberHeaders)).body.clusters;
    const limit = have + 1;
    const q = await mcall('POST', '/v1/quotas', { project_id: member.projectId, resource: 'Cluster', hard_limit: limit });
    expect([q.status, q.body.hard_limit]).toEqual([201, limit]);
    try {
    expect((await mcall('POST', '/v1/quotas', { project_id: member.projectId, resource: 'Cluster', hard_limit: 1 })).status).toBe(409);
    expect((await mcall('POST', '/v1/quotas', { project_id: 'no-such-project', resource: 'Cluster' })).status).toBe(404);
    expect((await mcall('POST', '/v1/quotas', { project_id: member.projectId, resource: 'Cluster' }, memberHeaders)).status).toBe(403);
    expect((await mcall('GET', `/v1/quotas/${member.projectId}/Cluster`, undefined, memberHeaders)).body.hard_limit).toBe(limit);
    await addSshFault({ match: 'swapoff', exitCode: 1, times: 10 });
    const first = await createCluster(`quota-${run}`);
    const second = await mcall('POST', '/v1/clusters', { cluster_template_id: template.uuid }, memberHeaders);
    expect([second.status, detail(second)]).toEqual([403, `Resource limit exceeded: You have reached the maximum clusters per project, ${limit}. You may delete a cluster to make room for a new one.`]);
    const stats = await mcall('GET', '/v1/stats', undefined, memberHeaders);
    expect(stats.body.clusters).toBe(limit);
    expect((await mcall('GET', '/v1/stats?project_id=other', undefined, memberHeaders)).status).toBe(403);
    await mcall('DELETE', `/v1/clusters/${first}`, undefined, memberHeaders);
    await waitStatus(first, ['GONE'], 120_000, memberHeaders);
    } finally {
      expect((await mcall('DELETE', `/v1/quotas/${member.projectId}/Cluster`)).status).toBe(204);
    }
  });
  it('mservices: admins only, one conductor that is up', async () => {
    expect((await mcall('GET', '/v1/mservices', undefined, memberHeaders)).status).toBe(403);
    const s = (await mcall('GET', '/v1/mservices')).body.mservices;
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ id: 1, binary: 'magnum-conductor', state: 'up' });
    expect(s[0].report_count).toBeGreaterThan(0);
  });
});

describe('CADF notifications', () => {
  it('reach the operator\'s webhook durably (the worker killed -9 meanwhile) and stay in the audit log', async () => {
    const got: any[] = [];
    let refuse = 2; // the sink fails its first two deliveries: retried with backoff
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        if (refuse-- > 0) { res.writeHead(503).end(); return; }
        // at least once: a worker killed between the POST and its record posts again; a receiver drops copies by message_id
        const n = JSON.parse(body);
        if (!got.some((x) => x.message_id === n.message_id)) got.push(n);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/cadf`;
    killWorker();
    restartWorker('worker', { MAGNUM_NOTIFICATION_WEBHOOKS: url });
    try {
      await addSshFault({ match: 'swapoff', exitCode: 1, times: 10 });
      const id = await createCluster(`cadf-${run}`);
      await waitStatus(id, ['CREATE_FAILED'], 120_000, memberHeaders);
      killWorker();
      restartWorker('worker', { MAGNUM_NOTIFICATION_WEBHOOKS: url });
      await mcall('DELETE', `/v1/clusters/${id}`, undefined, memberHeaders);
      await waitStatus(id, ['GONE'], 120_000, memberHeaders);
      const mine = () => got.filter((n) => n.payload.target.id === id).map((n) => `${n.event_type} ${n.payload.outcome}`).sort();
      await eventually('every notification delivered', async () => (mine().length === 4 ? true : undefined), 120_000, 500);
      expect(mine()).toEqual(['magnum.cluster.create failure', 'magnum.cluster.create pending', 'magnum.cluster.delete pending', 'magnum.cluster.delete success']);
      // one sink gets the events in the order they happened (its delivery workflow), the twice-refused first one included
      expect(got.filter((x) => x.payload.target.id === id).map((x) => `${x.event_type} ${x.payload.outcome}`))
        .toEqual(['magnum.cluster.create pending', 'magnum.cluster.create failure', 'magnum.cluster.delete pending', 'magnum.cluster.delete success']);
      const n = got.find((x) => x.payload.target.id === id && x.payload.outcome === 'failure');
      expect(n).toMatchObject({ priority: 'ERROR', publisher_id: expect.stringMatching(/^container-infra\./) });
      expect(n.payload).toMatchObject({
        typeURI: 'http://schemas.dmtf.org/cloud/audit/1.0/event', eventType: 'activity', action: 'create',
        initiator: { typeURI: 'service/security/account/user', project_id: member.projectId }, target: { typeURI: 'service/magnum/cluster', id },
      });
      expect(n.payload.target.attachments[0].content).toMatchObject({ status: 'CREATE_FAILED', node_count: 1, master_count: 1 });
      const log = await mcall('GET', `/v1/notifications?cluster_id=${id}`);
      expect(log.body.notifications).toHaveLength(4);
      expect(log.body.notifications.every((x: any) => x.deliveries[0].delivered && x.deliveries[0].state === 'DELIVERED')).toBe(true);
      expect(log.body.notifications.find((x: any) => x.payload.outcome === 'pending' && x.event_type === 'magnum.cluster.create').deliveries[0].attempts).toBe(3);
      expect((await mcall('GET', '/v1/notifications', undefined, memberHeaders)).status).toBe(403);
    } finally {
      killWorker();
      restartWorker();
      server.close();
    }
  }, 400_000);
});
