/**
 * SOL003 VNF LCM data types shared by the request bodies (each operation's
 * own body is in ops/vnflcm/<operation>/request.ts), for /vnflcm/v1 and
 * /vnflcm/v2 (v2 writes some lists as maps keyed by id; both are accepted).
 */
import { z } from 'zod';
import { secret } from '../common/secret-schema';
import { Identifier, KeyValuePairs } from './common';

export const CreateVnfRequest = z.object({
  vnfdId: Identifier,
  vnfInstanceName: z.string().max(255).optional(),
  vnfInstanceDescription: z.string().max(1024).optional(),
  metadata: KeyValuePairs.optional(),
});

export const listOrMap = <T extends z.ZodType>(item: T) => z.union([z.array(item), z.record(z.string(), item)]);

const CpProtocolData = z.object({
  layerProtocol: z.enum(['IP_OVER_ETHERNET', 'IP_FOR_VIRTUAL_CP']),
  ipOverEthernet: KeyValuePairs.optional(),
});
const VnfExtCpConfig = z.object({
  parentCpConfigId: z.string().optional(),
  cpInstanceId: z.string().optional(),
  linkPortId: z.string().optional(),
  cpProtocolData: z.array(CpProtocolData).optional(),
});
export const ExtVirtualLinkData = z.object({
  id: Identifier,
  vimConnectionId: z.string().optional(),
  resourceProviderId: z.string().optional(),
  resourceId: Identifier,
  extCps: z.array(z.object({ cpdId: Identifier, cpConfig: listOrMap(VnfExtCpConfig).optional() })).min(1),
  extLinkPorts: z.array(KeyValuePairs).optional(),
});
export const ExtManagedVirtualLinkData = z.object({
  id: Identifier,
  vnfVirtualLinkDescId: Identifier,
  vimConnectionId: z.string().optional(),
  resourceId: Identifier,
});
/** SOL003 accessInfo of an OpenStack VIM (Keystone v3 password auth); other keys are the VIM type's own. */
const AccessInfo = z.looseObject({
  username: z.string().max(255).optional(),
  password: secret(z.string().max(4096)).optional(),
  project: z.string().max(255).optional(),
  projectName: z.string().max(255).optional(),
  projectId: z.string().max(255).optional(),
  projectDomain: z.string().max(255).optional(),
  userDomain: z.string().max(255).optional(),
  region: z.string().max(255).optional(),
});
export const VimConnectionInfo = z.object({
  id: z.string().optional(),
  vimId: z.string().optional(),
  vimType: z.string().min(1),
  interfaceInfo: z.looseObject({ endpoint: z.string().max(2048).optional() }).optional(),
  accessInfo: AccessInfo.optional(),
  extra: KeyValuePairs.optional(),
});

export const CancelModeRequest = z.object({ cancelMode: z.enum(['GRACEFUL', 'FORCEFUL']) });

