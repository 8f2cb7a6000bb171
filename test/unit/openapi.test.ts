/** The OpenAPI document comes from the same zod schemas the routes validate with. */
import { openApiDocument } from '../../api/openapi';
import { taskRoute } from '../../ops/operation';
import { VNF_LCM_OPERATIONS } from '../../ops/registry';

test('OpenAPI document has the ETSI paths and the request schemas', () => {
  const doc = openApiDocument() as any;
  expect(doc.paths['/vnflcm/v1/vnf_instances/{vnfInstanceId}/instantiate'].post.requestBody).toBeDefined();
  expect(doc.paths['/vnflcm/v2/vnf_lcm_op_occs/{vnfLcmOpOccId}/cancel']).toBeDefined();
  expect(doc.components.schemas.ScaleVnfRequest.properties.type.enum).toEqual(['SCALE_OUT', 'SCALE_IN']);
  expect(doc.paths['/vnflcm/v1/vnf_instances/{vnfInstanceId}/heal'].post.requestBody).toBeDefined();
  const inst = doc.components.schemas.InstantiateVnfRequest;
  expect(inst.required).toContain('flavourId');
  expect(inst.properties.extVirtualLinks.type).toBe('array');
  expect(doc.components.schemas.TerminateVnfRequest.properties.terminationType.enum).toEqual(['FORCEFUL', 'GRACEFUL']);
});

test("every operation's task is documented from the operation registry, by its method, on its API versions only", () => {
  const doc = openApiDocument() as any;
  for (const op of Object.values(VNF_LCM_OPERATIONS)) {
    for (const v of ['v1', 'v2'] as const) {
      const path = doc.paths[`/vnflcm/${v}${taskRoute(op.task).replace(':id', '{vnfInstanceId}')}`];
      const method = op.task.method.toLowerCase();
      expect([op.task.path, v, !!path?.[method]?.requestBody]).toEqual([op.task.path, v, op.task.versions.includes(v)]);
    }
    expect(doc.components.schemas[op.requestName]).toBeDefined();
  }
  expect(doc.paths['/vnflcm/v2/vnf_instances/{vnfInstanceId}/change_vnfpkg'].post.requestBody).toBeDefined();
});

test("Magnum's /v1 is documented from the schemas its routes validate with", () => {
  const doc = openApiDocument() as any;
  expect(doc.paths['/v1/clusters'].post.requestBody).toBeDefined();
  expect(doc.paths['/v1/clusters/{cluster}/actions/resize'].post.requestBody).toBeDefined();
  // every operation that declares a route is documented at it, from its module (ops/registry.ts)
  expect(doc.paths['/v1/clusters/{cluster}/actions/upgrade'].post.description).toMatch(/workflow magnumClusterUpgrade/);
  expect(doc.paths['/v1/clusters/{cluster}/nodegroups/{nodegroup}'].patch.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/JsonPatch');
  expect(doc.paths['/v1/clusters/{cluster}/nodegroups/{nodegroup}'].delete.responses['204']).toBeDefined();
  expect(doc.paths['/v1/clusters/{cluster}'].delete.description).toMatch(/workflow magnumClusterDelete/);
  expect(doc.paths['/v1/certificates/{cluster}'].patch.requestBody).toBeUndefined();
  expect(doc.components.schemas.Cluster.required).toEqual(['cluster_template_id']);
  expect(doc.components.schemas.ClusterTemplate.properties.coe.enum).toEqual(['kubernetes']);
  expect(doc.components.schemas.ClusterTemplate.properties.http_proxy.writeOnly).toBe(true);
  expect(doc.components.schemas.ClusterResizeRequest.required).toEqual(['node_count']);
});
