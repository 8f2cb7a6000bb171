/** The OpenAPI document comes from the same zod schemas the routes validate with. */
import { openApiDocument } from '../api/openapi';

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
