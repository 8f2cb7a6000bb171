/** ChangeExtVnfConnectivityRequest (SOL003 5.5.2.11): the external VLs to connect the VNF's external CPs to. */
import { z } from 'zod';
import { KeyValuePairs } from '../../../model/common';
import { ExtVirtualLinkData, listOrMap, VimConnectionInfo } from '../../../model/vnflcm';

export const ChangeExtVnfConnectivityRequest = z.object({
  extVirtualLinks: z.array(ExtVirtualLinkData).min(1),
  vimConnectionInfo: listOrMap(VimConnectionInfo).optional(),
  additionalParams: KeyValuePairs.optional(),
});
export type ChangeExtVnfConnectivityRequest = z.infer<typeof ChangeExtVnfConnectivityRequest>;
