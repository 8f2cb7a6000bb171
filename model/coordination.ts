/**
 * ETSI NFV-SOL 002 v3.6.1 VNF LCM coordination interface (API version 1.0.0)
 * data types, shared by the coordination client (coord/client*), the
 * reference EM server (em/) and the change_vnfpkg workflow.
 */
import { z } from 'zod';
import { secret } from '../common/secret-schema';

export const COORD_API_VERSION = '1.0.0';
export const COORD_BASE = '/lcmcoord/v1';

const Link = z.object({ href: z.string() });

export const LcmCoordRequest = z.object({
  vnfInstanceId: z.string(),
  vnfLcmOpOccId: z.string(),
  lcmOperationType: z.string(), // e.g. CHANGE_VNFPKG
  coordinationActionName: z.string(),
  inputParams: z.record(z.string(), z.unknown()).optional(),
  _links: z.object({ vnfLcmOpOcc: Link, vnfInstance: Link }),
});
export type LcmCoordRequest = z.infer<typeof LcmCoordRequest>;

export const LcmCoordResultType = z.enum(['CONTINUE', 'ABORT', 'CANCELLED']);

export const LcmCoord = z.object({
  id: z.string(),
  coordinationResult: LcmCoordResultType,
  vnfInstanceId: z.string(),
  vnfLcmOpOccId: z.string(),
  lcmOperationType: z.string(),
  coordinationActionName: z.string(),
  outputParams: z.record(z.string(), z.unknown()).optional(),
  warnings: z.string().optional(),
  error: z.record(z.string(), z.unknown()).optional(),
  _links: z.object({ self: Link, vnfLcmOpOcc: Link, vnfInstance: Link }).partial().optional(),
});
export type LcmCoord = z.infer<typeof LcmCoord>;

/** vnfc_param.authentication, as seed 004's table and SOL013 SubscriptionAuthentication. */
export const CoordAuthentication = z.object({
  authType: z.array(z.enum(['BASIC', 'OAUTH2_CLIENT_CREDENTIALS', 'OAUTH2_CLIENT_CERT'])).min(1),
  paramsBasic: z.object({ userName: z.string().optional(), password: secret(z.string()).optional() }).optional(),
  paramsOauth2ClientCredentials: z.object({
    clientId: z.string().optional(), clientPassword: secret(z.string()).optional(), tokenEndpoint: z.string().optional(),
  }).optional(),
  paramsOauth2ClientCert: z.object({
    clientId: z.string(),
    certificateRef: z.object({ type: z.literal('x5t#S256'), value: z.string().min(1) }),
    tokenEndpoint: z.string(),
  }).optional(),
});
export type CoordAuthentication = z.infer<typeof CoordAuthentication>;
