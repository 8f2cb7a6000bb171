/**
 * VnfInfoModificationRequest (SOL003 5.5.2.12, PATCH .../vnf_instances/{id}).
 * metadata, extensions and vnfConfigurableProperties are JSON merge patches
 * (RFC 7396) of the instance's; vnfInstanceName / vnfInstanceDescription
 * null removes them. vnfdId and vimConnectionInfo (a map, merged by key) are
 * taken on /vnflcm/v2 only, as Tacker's v2 API.
 */
import { z } from 'zod';
import { Identifier, KeyValuePairs } from '../../../model/common';
import { VimConnectionInfo } from '../../../model/vnflcm';

export const VnfInfoModificationRequest = z.object({
  vnfInstanceName: z.string().max(255).nullable().optional(),
  vnfInstanceDescription: z.string().max(1024).nullable().optional(),
  vnfdId: Identifier.optional(),
  vnfConfigurableProperties: KeyValuePairs.optional(),
  metadata: KeyValuePairs.optional(),
  extensions: KeyValuePairs.optional(),
  vimConnectionInfo: z.record(z.string().min(1).max(255), VimConnectionInfo).optional(),
});
export type VnfInfoModificationRequest = z.infer<typeof VnfInfoModificationRequest>;

/** Fields only /vnflcm/v2 takes. */
export const V2_ONLY_FIELDS = ['vnfdId', 'vimConnectionInfo'] as const;
