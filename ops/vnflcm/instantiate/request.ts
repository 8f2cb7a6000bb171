/** The InstantiateVnfRequest (SOL003 5.5.2.4) body. */
import { z } from 'zod';
import { InstantiateAdditionalParams } from '../../../model/additional-params';
import { Identifier, KeyValuePairs } from '../../../model/common';
import { ExtManagedVirtualLinkData, ExtVirtualLinkData, listOrMap, VimConnectionInfo } from '../../../model/vnflcm';

export const InstantiateVnfRequest = z.object({
  flavourId: Identifier,
  instantiationLevelId: Identifier.optional(),
  extVirtualLinks: z.array(ExtVirtualLinkData).optional(),
  extManagedVirtualLinks: z.array(ExtManagedVirtualLinkData).optional(),
  vimConnectionInfo: listOrMap(VimConnectionInfo).optional(),
  localizationLanguage: z.string().optional(),
  additionalParams: InstantiateAdditionalParams.optional(),
  extensions: KeyValuePairs.optional(),
  vnfConfigurableProperties: KeyValuePairs.optional(),
});
export type InstantiateVnfRequest = z.infer<typeof InstantiateVnfRequest>;
