/**
 * Masking by schema (M5): the request schemas mark their secrets; op occs,
 * instances and errors show them masked, while what the schema describes as
 * not secret (clientId, tokenEndpoint, usernames) stays readable.
 */
import crypto from 'node:crypto';
import { openApiDocument } from '../../api/openapi';
import { ChangeCurrentVnfPkgRequest } from '../../ops/vnflcm/change-vnfpkg/request';
import { VimRegisterRequest } from '../../api/schemas/vims';
import { InstantiateVnfRequest } from '../../ops/vnflcm/instantiate/request';
import { opOccView } from '../../api/views';
import type { Config } from '../../common/config';
import { maskBySchema, secretsBySchema } from '../../common/secret-schema';
import { MASK, SecretBox } from '../../common/secrets';

/** Seed 000's private registry request, with an inline VIM and vendor keys no schema describes. */
const instantiate = () => InstantiateVnfRequest.parse({
  flavourId: 'simple',
  vimConnectionInfo: [{ vimType: 'openstack', interfaceInfo: { endpoint: 'http://k/v3' }, accessInfo: { username: 'admin', password: 'vim-pw-1', project: 'admin' } }],
  additionalParams: {
    private_registry_installation_param: {
      ssh_cp_name: 'CP1', ssh_username: 'ubuntu', ssh_password: 'ssh-pw-2',
      proxy: { http_proxy: 'http://user1:proxy-pw-3@host1:3128', https_proxy: 'https://user2:pa/ss-4@host2:3128', no_proxy: '192.168.246.0/24' },
    },
    k8s_cluster_installation_param: {
      master_node: { username: 'ubuntu', password: 'master-pw-5' },
      private_registry_connection_info: [{ connection_type: '0', server: '192.168.0.10:5000', username: 'reg', password: 'registry-pw-6' }],
    },
    vendor: { api_key: ['key-7'], cookie: { session: 'cookie-8' }, note: 'kept' },
  },
});
const INSTANTIATE_SECRETS = ['vim-pw-1', 'ssh-pw-2', 'proxy-pw-3', 'pa/ss-4', 'master-pw-5', 'registry-pw-6', 'key-7', 'cookie-8'];

test('instantiate: every secret the seeds define is masked, the rest is shown', () => {
  const shown = maskBySchema(InstantiateVnfRequest, instantiate()) as any;
  const text = JSON.stringify(shown);
  for (const s of INSTANTIATE_SECRETS) expect(text).not.toContain(s);
  expect(shown.vimConnectionInfo[0].accessInfo).toEqual({ username: 'admin', password: MASK, project: 'admin' });
  const reg = shown.additionalParams.private_registry_installation_param;
  expect(reg).toMatchObject({ ssh_username: 'ubuntu', ssh_password: MASK });
  expect(reg.proxy).toEqual({ http_proxy: `http://user1:${MASK}@host1:3128`, https_proxy: `https://user2:${MASK}@host2:3128`, no_proxy: '192.168.246.0/24' });
  expect(shown.additionalParams.k8s_cluster_installation_param.master_node).toEqual({ username: 'ubuntu', password: MASK });
  expect(shown.additionalParams.k8s_cluster_installation_param.private_registry_connection_info[0]).toMatchObject({ username: 'reg', password: MASK, server: '192.168.0.10:5000' });
  // free-form vendor keys: the key-name safety net masks a whole array or object under a secret key
  expect(shown.additionalParams.vendor).toEqual({ api_key: MASK, cookie: MASK, note: 'kept' });
  expect(secretsBySchema(InstantiateVnfRequest, instantiate()).sort()).toEqual(expect.arrayContaining(INSTANTIATE_SECRETS));
});

test('change_vnfpkg: VNFC, load balancer and coordination client secrets masked; clientId and tokenEndpoint shown', () => {
  const auth = {
    authType: ['BASIC', 'OAUTH2_CLIENT_CREDENTIALS'],
    paramsBasic: { userName: 'em', password: 'basic-pw-1' },
    paramsOauth2ClientCredentials: { clientId: 'client-a', clientPassword: 'client-pw-2', tokenEndpoint: 'https://em/token' },
  };
  const req = ChangeCurrentVnfPkgRequest.parse({
    vnfdId: 'd',
    additionalParams: {
      upgrade_type: 'RollingUpdate',
      vdu_params: [{ vdu_id: 'VDU1', old_vnfc_param: { cp_name: 'CP1', username: 'ubuntu', password: 'vnfc-pw-3', endpoint: 'https://em', authentication: auth } }],
      external_lb_param: { ip_address: '10.0.0.1', username: 'lb', password: 'lb-pw-4' },
    },
  });
  const shown = maskBySchema(ChangeCurrentVnfPkgRequest, req) as any;
  const vnfc = shown.additionalParams.vdu_params[0].old_vnfc_param;
  expect(vnfc.password).toBe(MASK);
  expect(vnfc.authentication.paramsBasic).toEqual({ userName: 'em', password: MASK });
  expect(vnfc.authentication.paramsOauth2ClientCredentials).toEqual({ clientId: 'client-a', clientPassword: MASK, tokenEndpoint: 'https://em/token' });
  expect(shown.additionalParams.external_lb_param).toEqual({ ip_address: '10.0.0.1', username: 'lb', password: MASK });
  expect(secretsBySchema(ChangeCurrentVnfPkgRequest, req).sort()).toEqual(['basic-pw-1', 'client-pw-2', 'lb-pw-4', 'vnfc-pw-3']);
});

test('VIM register: auth_cred.password is a secret', () => {
  const req = VimRegisterRequest.parse({ vim: { name: 'v', auth_url: 'http://k/v3', auth_cred: { username: 'u', password: 'vim-reg-pw' }, vim_project: { name: 'p' } } });
  expect((maskBySchema(VimRegisterRequest, req) as any).vim.auth_cred).toEqual({ username: 'u', password: MASK });
});

test('the OpenAPI document marks secrets writeOnly', () => {
  const doc = openApiDocument() as any;
  const vci = doc.components.schemas.InstantiateVnfRequest.properties.vimConnectionInfo.anyOf[0].items;
  expect(vci.properties.accessInfo.properties.password).toMatchObject({ writeOnly: true, format: 'password' });
});

test('op occ: operationParams and error shown masked, the error by every secret of the sealed request', () => {
  const box = new SecretBox(crypto.randomBytes(32));
  const params = instantiate();
  const row = {
    id: 'op1', projectId: 'p', vnfInstanceId: 'i1', operation: 'INSTANTIATE', operationState: 'FAILED_TEMP', stateEnteredTime: 't', startTime: 't',
    isAutomaticInvocation: false, isCancelPending: false, workflowStarted: true, cancelMode: null, resourceChanges: null, changedInfo: null,
    lcmCoordinations: null, rejectedLcmCoordinations: null, currentStep: null, rollingProgress: null,
    // an old row: stored before masking by schema
    operationParams: params as Record<string, unknown>, operationParamsSealed: box.sealJson(params),
    error: { title: 'Step "x" failed: login ssh-pw-2', status: 500, detail: 'ssh ubuntu@10.0.0.5 refused ssh-pw-2; registry said "registry-pw-6"; proxy http://user1:proxy-pw-3@host1' },
  };
  const view = opOccView(row as any, 'v1', { apiBaseUrl: 'https://nfvo.example:9890/', temporalUiUrl: 'http://ui', temporalNamespace: 'default' } as unknown as Config, box);
  const text = JSON.stringify(view);
  for (const s of INSTANTIATE_SECRETS) expect(text).not.toContain(s);
  expect(view.error!.detail).toContain('ssh ubuntu@10.0.0.5 refused ****');
  expect(view.error!.title).toBe('Step "x" failed: login ****');
  // links are absolute on API_BASE_URL (its trailing slash not doubled)
  expect(view._links.self.href).toBe('https://nfvo.example:9890/vnflcm/v1/vnf_lcm_op_occs/op1');
  expect(view._links.retry.href).toBe('https://nfvo.example:9890/vnflcm/v1/vnf_lcm_op_occs/op1/retry');
});
