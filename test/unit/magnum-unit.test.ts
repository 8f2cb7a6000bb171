/**
 * The Magnum API's pure parts (HARNESS=off): Python literals as the client
 * sends labels, JSON patch with Magnum's rules, microversion headers, list
 * pagination, WSME-style body messages, the stack template's names, CADF
 * payloads, and the registry of operations against the worker's bundle.
 */
import * as bundle from '../../worker/workflows';
import { literalEval, LiteralError } from '../../model/magnum/python-literal';
import { applyPatch } from '../../model/magnum/json-patch';
import { requestedVersion } from '../../api/magnum/microversion';
import { paginate } from '../../api/magnum/collection';
import { magnumBody, magnumBoolQuery } from '../../api/magnum/body';
import { titleOf } from '../../api/magnum/errors';
import { labelsOf } from '../../ops/magnum/cluster-create/precheck';
import { ClusterInput } from '../../ops/magnum/cluster-create/request';
import { ClusterTemplateInput } from '../../model/magnum/template';
import { MAGNUM_CLUSTER_OPERATIONS } from '../../ops/registry';
import { clusterStack, nodegroupsNamedIn, serverNameOf } from '../../ops/magnum/shared/heat-template';
import { cadfEventId, outcomeOf } from '../../ops/magnum/shared/cadf';
import { upgradePathProblem } from '../../ops/magnum/shared/upgrade-path';
import { HttpError } from '../../common/http-error';

const refusal = (fn: () => unknown): { status: number; message: string } => {
  try {
    fn();
  } catch (e) {
    if (e instanceof HttpError) return { status: e.status, message: e.message };
    throw e;
  }
  throw new Error('not refused');
};

describe('Python literals (ast.literal_eval)', () => {
  it('reads what the client sends for labels: str(dict)', () => {
    expect(literalEval("{'a': 'b', 'kube_tag': 'v1.37.2', 'n': 3, 'f': 1.5, 't': True, 'x': None}"))
      .toEqual({ a: 'b', kube_tag: 'v1.37.2', n: 3, f: 1.5, t: true, x: null });
    expect(literalEval('{"q": "it\'s", \'e\': \'\\n\\x41\\u00e9\'}')).toEqual({ q: "it's", e: '\nAé' });
    expect(literalEval("[1, (2, 3), []]")).toEqual([1, [2, 3], []]);
    expect(literalEval("{}")).toEqual({});
  });
  it('refuses what is not a literal, naming the position', () => {
    for (const bad of ["{'a': b}", "{'a': 'b'", "__import__('os')", "{'a': 1} x", "{'__proto__': 1}"]) {
      expect(() => literalEval(bad)).toThrow(LiteralError);
    }
  });
});

describe('JSON patch as Magnum applies it', () => {
  const doc = { uuid: 'u', name: 'a', labels: { k: 'v' }, tags: null, public: false };
  it('replace, add into a dict, remove from a dict, add to a null root attribute', () => {
    expect(applyPatch(doc, [{ op: 'replace', path: '/name', value: 'b' }]).name).toBe('b');
    expect(applyPatch(doc, [{ op: 'add', path: '/labels/x', value: 'y' }]).labels).toEqual({ k: 'v', x: 'y' });
    expect(applyPatch(doc, [{ op: 'remove', path: '/labels/k' }]).labels).toEqual({});
    expect(applyPatch(doc, [{ op: 'add', path: '/tags', value: 'a,b' }]).tags).toBe('a,b');
  });
  it('takes the client\'s Python-literal string for a dict attribute', () => {
    expect(applyPatch(doc, [{ op: 'replace', path: '/labels', value: "{'a': 'b'}" }], { dicts: ['labels'] }).labels).toEqual({ a: 'b' });
    expect(applyPatch(doc, [{ op: 'replace', path: '/labels', value: { a: 1 } }], { dicts: ['labels'] }).labels).toEqual({ a: 1 });
  });
  it('refuses with Magnum\'s texts', () => {
    expect(refusal(() => applyPatch(doc, [{ op: 'replace', path: '/uuid', value: 'x' }])).message).toBe("'/uuid' is an internal attribute and can not be updated");
    expect(refusal(() => applyPatch(doc, [{ op: 'add', path: '/foo', value: 1 }])).message).toBe('Adding a new attribute /foo to the root of the resource is not allowed.');
    expect(refusal(() => applyPatch(doc, [{ op: 'add', path: '/name', value: 'x' }])).message).toMatch(/has existed, please use 'replace'/);
    expect(refusal(() => applyPatch(doc, [{ op: 'remove', path: '/public' }], { mandatory: ['public'] })).message).toBe("'/public' is a mandatory attribute and can not be removed");
    expect(refusal(() => applyPatch(doc, [{ op: 'replace', path: '/labels', value: "{'a'" }], { dicts: ['labels'] })).status).toBe(400);
    expect(refusal(() => applyPatch(doc, [{ op: 'remove', path: '/labels/nope' }])).message).toMatch(/can't remove a non-existent object 'nope'/);
  });
});

describe('microversions', () => {
  it('1.1 without a header, latest is 1.14, every service name', () => {
    expect(requestedVersion(undefined)).toMatchObject({ major: 1, minor: 1 });
    expect(requestedVersion('container-infra latest')).toMatchObject({ minor: 14 });
    expect(requestedVersion('container-infrastructure-management 1.9')).toMatchObject({ minor: 9 });
    expect(requestedVersion('compute 2.1, container-infra 1.4')).toMatchObject({ minor: 4 });
  });
  it('406 for a wrong service, a bad value or a version out of range', () => {
    expect(refusal(() => requestedVersion('compute 2.1'))).toEqual({ status: 406, message: 'Invalid service type for OpenStack-API-Version header' });
    expect(refusal(() => requestedVersion('container-infra 1.99')).status).toBe(406);
    expect(refusal(() => requestedVersion('container-infra 1.0')).status).toBe(406);
    expect(refusal(() => requestedVersion('container-infra one')).status).toBe(406);
  });
});

describe('lists', () => {
  const rows = ['c', 'a', 'b', 'd'].map((n, i) => ({ id: `0000000${i}-0000-0000-0000-000000000000`, name: n, t: i }));
  const spec = { what: 'Cluster', url: 'http://h/v1/clusters', uuidOf: (r: typeof rows[0]) => r.id, sortable: { id: (r: typeof rows[0]) => r.t, name: (r: typeof rows[0]) => r.name } };
  it('pages with limit and marker, next only on a full page', () => {
    const p1 = paginate(rows, { limit: '2' }, spec);
    expect(p1.items.map((r) => r.name)).toEqual(['c', 'a']);
    expect(p1.next).toBe(`http://h/v1/clusters?sort_key=id&sort_dir=asc&limit=2&marker=${rows[1].id}`);
    const p2 = paginate(rows, { limit: '2', marker: rows[1].id }, spec);
    expect(p2.items.map((r) => r.name)).toEqual(['b', 'd']);
    expect(p2.next).toBeUndefined();
    expect(paginate(rows, { sort_key: 'name', sort_dir: 'desc' }, spec).items.map((r) => r.name)).toEqual(['d', 'c', 'b', 'a']);
  });
  it('refuses a bad limit, sort key or marker', () => {
    expect(refusal(() => paginate(rows, { limit: '0' }, spec)).message).toBe('Limit must be positive');
    expect(refusal(() => paginate(rows, { sort_key: 'x' }, spec)).message).toBe('The sort_key value "x" is an invalid field for sorting');
    expect(refusal(() => paginate(rows, { marker: 'nope' }, spec)).status).toBe(400);
    expect(refusal(() => paginate(rows, { marker: '99999999-0000-0000-0000-000000000000' }, spec)).status).toBe(404);
  });
});

describe('request bodies, WSME style', () => {
  it('names the unknown, read-only, missing and wrong field', () => {
    expect(refusal(() => magnumBody(ClusterInput, { cluster_template_id: 't', foo: 1 }, { resource: 'cluster' })).message).toBe('Unknown attribute for argument cluster: foo');
    expect(refusal(() => magnumBody(ClusterInput, { cluster_template_id: 't', status: 'x' }, { resource: 'cluster', readOnly: ['status'] })).message).toMatch(/field\/attribute status\. Value: 'x'\. Cannot set read only field/);
    expect(refusal(() => magnumBody(ClusterTemplateInput, { coe: 'kubernetes' }, { resource: 'cluster_template' })).message).toBe("Invalid input for field/attribute image_id. Value: 'None'. Mandatory field missing.");
    expect(refusal(() => magnumBody(ClusterInput, { cluster_template_id: 't', master_count: 0 }, { resource: 'cluster' })).message).toMatch(/^Invalid input for field\/attribute master_count\. Value: '0'\./);
    expect(refusal(() => magnumBody(ClusterTemplateInput, { coe: 'swarm', image_id: 'i' }, { resource: 'cluster_template' })).message).toMatch(/coe\. Value: 'swarm'\. Value should be one of: kubernetes/);
  });
  it('labels the engine puts on node command lines must be what they claim to be (security review 3, Low 3)', () => {
    const hostile = refusal(() => magnumBody(ClusterTemplateInput, { coe: 'kubernetes', image_id: 'i', labels: { kube_tag: '1.37.2;touch${IFS}/tmp/p;#' } }, { resource: 'cluster_template' })).message;
    expect(hostile).toMatch(/labels\.kube_tag.*must be a Kubernetes version like v1\.37\.2/);
    expect(refusal(() => magnumBody(ClusterInput, { cluster_template_id: 't', labels: { calico_ipv4pool: '10.0.0.0/8 x' } }, { resource: 'cluster' })).message).toMatch(/labels\.calico_ipv4pool.*IPv4 CIDR/);
    for (const kube_tag of ['v1.37.2', '1.37.2', 'v1.28.9-rancher1']) {
      expect(magnumBody(ClusterTemplateInput, { coe: 'kubernetes', image_id: 'i', labels: { kube_tag, other: 'any; thing' } }, { resource: 'cluster_template' }).labels).toEqual({ kube_tag, other: 'any; thing' });
    }
  });
  it('?rollback= as WSME reads a boolean: True and False in any case, 1/0; anything else a 400 naming it, not a silent false', () => {
    expect(['True', 'true', '1', 'yes'].map((v) => magnumBoolQuery(v, 'rollback'))).toEqual([true, true, true, true]);
    expect([undefined, 'False', '0', 'no'].map((v) => magnumBoolQuery(v, 'rollback'))).toEqual([false, false, false, false]);
    expect(refusal(() => magnumBoolQuery('maybe', 'rollback')).message).toMatch(/^Invalid input for field\/attribute rollback\. Value: 'maybe'\. Unrecognized value/);
    expect(refusal(() => magnumBoolQuery(['True', 'False'], 'rollback')).message).toMatch(/field\/attribute rollback/);
  });
  it('treats null as absent (the client sends many)', () => {
    expect(magnumBody(ClusterInput, { cluster_template_id: 't', keypair: null, labels: null }, { resource: 'cluster' })).toEqual({ cluster_template_id: 't' });
  });
  it('error titles are the first sentence', () => {
    expect(titleOf('Cluster k8s-a could not be found.')).toBe('Cluster k8s-a could not be found');
    expect(titleOf('Resource limit exceeded: You have reached the maximum clusters per project, 20. You may delete a cluster.')).toBe('Resource limit exceeded: You have reached the maximum clusters per project, 20');
  });
});

describe('clusters', () => {
  it('labels: the template\'s, the request\'s, or merged, with Magnum\'s bookkeeping', () => {
    expect(labelsOf({ a: '1', b: '2' }, undefined, false).labels).toEqual({ a: '1', b: '2' });
    const replaced = labelsOf({ a: '1', b: '2' }, { a: '9', c: '3' }, false);
    expect(replaced).toEqual({ labels: { a: '9', c: '3' }, labels_overridden: { a: '9' }, labels_added: { c: '3' }, labels_skipped: { b: '2' } });
    expect(labelsOf({ a: '1', b: '2' }, { a: '9' }, true).labels).toEqual({ a: '9', b: '2' });
  });
  it('the stack names each server "<nodegroup>-<index>", and failures map back to the nodegroup', () => {
    const t = clusterStack({ clusterId: 'c1', clusterName: 'k8s', networkId: 'n', authorizedKeys: ['ssh-ed25519 AAAA k'], members: [
      { nodegroup: 'default-master', index: 0, serverName: serverNameOf('k8s', 'c1abcdef', 'default-master', 0), imageId: 'i', flavorId: 'f', master: true },
      { nodegroup: 'default-worker', index: 1, serverName: serverNameOf('k8s', 'c1abcdef', 'default-worker', 1), imageId: 'i', flavorId: 'f', master: false },
    ] });
    expect(Object.keys(t.template.resources as object)).toEqual(['default-master-0', 'default-worker-1']);
    const worker = (t.template.resources as any)['default-worker-1'].properties;
    expect(worker.name).toBe('k8s-c1abcd-default-worker-1');
    expect(worker.user_data_format).toBe('RAW');
    expect(worker.user_data).toMatch(/^#cloud-config\n[\s\S]*ssh_authorized_keys:\n {2}- ssh-ed25519 AAAA k/);
    expect(worker).not.toHaveProperty('key_name');
    expect(nodegroupsNamedIn('Resource CREATE failed: ResourceInError: resources.default-worker-1: Went to status ERROR', ['default-master', 'default-worker', 'default'])).toEqual(['default-worker']);
    expect(serverNameOf('A_Very.Long name'.repeat(5), 'abcdef12', 'big-group', 12).length).toBeLessThanOrEqual(63);
  });
  it('master_lb_enabled: Magnum\'s API load balancer on Octavia, every master a member on 6443, its VIP the api_address output', () => {
    const member = (nodegroup: string, index: number, master: boolean) => ({ nodegroup, index, serverName: `s${index}`, imageId: 'i', flavorId: 'f', master });
    const t = clusterStack({ clusterId: 'c1', clusterName: 'k8s', networkId: 'net-1', subnetId: 'sub-1', apiLbSubnetId: 'sub-1', authorizedKeys: [], members: [
      member('default-master', 0, true), member('default-master', 1, true), member('default-master', 2, true), member('default-worker', 0, false),
    ] });
    const r = t.template.resources as Record<string, { type: string; properties: Record<string, unknown> }>;
    expect(r.api_lb).toEqual({ type: 'OS::Octavia::LoadBalancer', properties: { name: 'k8s-api', vip_subnet: 'sub-1' } });
    expect(r.api_listener.properties).toMatchObject({ protocol: 'TCP', protocol_port: 6443, loadbalancer: { get_resource: 'api_lb' } });
    expect(r.api_monitor.properties).toMatchObject({ type: 'TCP', pool: { get_resource: 'api_pool' } });
    const members = Object.entries(r).filter(([, v]) => v.type === 'OS::Octavia::PoolMember');
    expect(members.map(([k]) => k)).toEqual(['default-master-0-api', 'default-master-1-api', 'default-master-2-api']);
    expect(members[1][1].properties).toEqual({ pool: { get_resource: 'api_pool' }, address: { get_attr: ['default-master-1', 'networks', 'net-1', 0] }, subnet: 'sub-1', protocol_port: 6443 });
    expect(t.template.outputs).toEqual({ api_address: { description: expect.any(String), value: { get_attr: ['api_lb', 'vip_address'] } } });
    // without it: no load balancer, no outputs (the first master is the endpoint)
    const plain = clusterStack({ clusterId: 'c1', clusterName: 'k8s', networkId: 'net-1', authorizedKeys: [], members: [member('default-master', 0, true)] });
    expect(Object.keys(plain.template.resources as object)).toEqual(['default-master-0']);
    expect(plain.template).not.toHaveProperty('outputs');
  });
  it('CADF outcomes and stable event ids', () => {
    expect(['CREATE_IN_PROGRESS', 'CREATE_COMPLETE', 'UPDATE_FAILED', 'ROLLBACK_IN_PROGRESS', 'ROLLBACK_COMPLETE'].map(outcomeOf)).toEqual(['pending', 'success', 'failure', undefined, 'success']);
    expect(cadfEventId('op', 'CREATE_COMPLETE')).toBe(cadfEventId('op', 'CREATE_COMPLETE'));
    expect(cadfEventId('op', 'CREATE_COMPLETE')).not.toBe(cadfEventId('op', 'CREATE_FAILED'));
    expect(cadfEventId('op', 'x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  });
  it('every operation has its own workflow type, exported by the worker bundle', () => {
    const names = Object.keys(MAGNUM_CLUSTER_OPERATIONS) as (keyof typeof MAGNUM_CLUSTER_OPERATIONS)[];
    for (const name of names) expect(MAGNUM_CLUSTER_OPERATIONS[name].operation).toBe(name);
    const types = names.map((op) => MAGNUM_CLUSTER_OPERATIONS[op].workflowType);
    expect(new Set(types).size).toBe(names.length);
    for (const t of types) expect(typeof (bundle as Record<string, unknown>)[t]).toBe('function');
    expect(MAGNUM_CLUSTER_OPERATIONS['cluster-resize'].summary({ clusterId: 'c1', clusterName: 'k8s', params: { nodegroup: 'default-worker', nodeCount: 3, nodesToRemove: ['s1'] } }))
      .toBe('Resize default-worker of cluster k8s (c1) to 3 node(s), removing s1');
  });
  it('every operation declares its checks, and those on an existing cluster their own route: one route per method and path', () => {
    const routes = Object.values(MAGNUM_CLUSTER_OPERATIONS).filter((op) => op.route).map((op) => `${op.route!.method} ${op.route!.path}`);
    expect(new Set(routes).size).toBe(routes.length);
    for (const op of Object.values(MAGNUM_CLUSTER_OPERATIONS)) {
      expect(op.operation === 'cluster-create' || typeof op.precheck === 'function').toBe(true);
      if (op.route) expect(op.route.path).toMatch(/:cluster(\/|$)/);
    }
    // the two with a route of their own: the create (no cluster yet) and the PATCH that also sets health fields
    expect(Object.values(MAGNUM_CLUSTER_OPERATIONS).filter((op) => !op.route).map((op) => op.operation).sort()).toEqual(['cluster-create', 'cluster-update']);
  });
});

describe('Kubernetes upgrade paths (kubeadm: never down, one minor at a time)', () => {
  test('patch and next-minor upgrades pass; downgrades, skipped minors and other majors are refused with the reason', () => {
    expect(upgradePathProblem('1.37.2', '1.37.5')).toBeUndefined();
    expect(upgradePathProblem('1.37.2', '1.38.0')).toBeUndefined();
    expect(upgradePathProblem('v1.36.3', 'v1.37.2')).toBeUndefined();
    expect(upgradePathProblem('v1.37.2', 'v1.36.3')).toMatch(/^Downgrading Kubernetes from v1\.37\.2 to v1\.36\.3 /);
    expect(upgradePathProblem('1.37.2', '1.36.3')).toMatch(/^Downgrading Kubernetes from v1\.37\.2 to v1\.36\.3 is not supported/);
    expect(upgradePathProblem('1.37.2', '1.37.1')).toMatch(/^Downgrading/);
    expect(upgradePathProblem('1.37.2', '1.39.0')).toMatch(/skips a minor version: upgrade to a v1\.38 template first/);
    expect(upgradePathProblem('1.37.2', '2.0.0')).toMatch(/skips a minor version/);
    expect(upgradePathProblem('1.37', '1.38.0')).toMatch(/not both versions/);
  });
});
