/** ChangeCurrentVnfPkgRequest (SOL003 v2) and its additionalParams, exactly as seed 004's table; secrets marked (the coordination auth's in model/coordination.ts). */
import { z } from 'zod';
import { secret } from '../../../common/secret-schema';
import { CoordAuthentication } from '../../../model/coordination';
import { Identifier, KeyValuePairs } from '../../../model/common';
import { VimConnectionInfo } from '../../../model/vnflcm';

export const VnfcParam = z.object({
  cp_name: z.string().min(1),
  username: z.string().min(1),
  password: secret(z.string().min(1)),
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  authentication: CoordAuthentication.optional(),
  coordination_server_param: KeyValuePairs.optional(),
  /** Seconds the whole coordination of one VNFC may take. */
  timeout: z.number().int().min(1).max(86_400).optional(),
  inputParams: KeyValuePairs.optional(),
});
export type VnfcParam = z.infer<typeof VnfcParam>;

export const ChangeVnfpkgAdditionalParams = z.object({
  upgrade_type: z.enum(['RollingUpdate', 'BlueGreen']),
  'lcm-operation-coordinate-old-vnf': z.string().min(1).optional(),
  'lcm-operation-coordinate-new-vnf': z.string().min(1).optional(),
  vdu_params: z.array(z.object({
    vdu_id: Identifier,
    old_vnfc_param: VnfcParam.optional(),
    new_vnfc_param: VnfcParam.optional(),
  })).min(1),
  external_lb_param: z.object({ ip_address: z.string().min(1), username: z.string().min(1), password: secret(z.string().min(1)) }).optional(),
}).passthrough();
export type ChangeVnfpkgAdditionalParams = z.infer<typeof ChangeVnfpkgAdditionalParams>;

export const ChangeCurrentVnfPkgRequest = z.object({
  vnfdId: Identifier,
  extVirtualLinks: z.array(KeyValuePairs).optional(),
  extManagedVirtualLinks: z.array(KeyValuePairs).optional(),
  vimConnectionInfo: z.union([z.array(VimConnectionInfo), z.record(z.string(), VimConnectionInfo)]).optional(),
  additionalParams: ChangeVnfpkgAdditionalParams,
  extensions: KeyValuePairs.optional(),
  vnfConfigurableProperties: KeyValuePairs.optional(),
});
export type ChangeCurrentVnfPkgRequest = z.infer<typeof ChangeCurrentVnfPkgRequest>;
