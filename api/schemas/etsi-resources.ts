/**
 * The ETSI resources as this API represents them, one schema each, after
 * the SOL data models of the versions it announces (SOL005 v2.6.1 VnfPkgInfo;
 * SOL003 v2.6.1 / v3.3.1 VnfInstance, VnfLcmOpOcc, LccnSubscription):
 * mandatory attributes present with their types, optional ones absent rather
 * than null (SOL013 §4.4), links absolute URIs. The views' types come from
 * them; with ETSI_CONFORMANCE_CHECK=1 (the test harness) every representation
 * the API renders is checked against its schema, so a test that makes a
 * resource the standard does not allow fails where it made it. Attributes
 * beyond the model (the op occ's Temporal link, the VNFC's Heat metadata) are
 * extensions the SOL documents permit and are let through.
 */
import { z } from 'zod';
import { INSTANTIATION_STATES, ONBOARDING_STATES, OPERATIONAL_STATES, USAGE_STATES } from '../../store/enums';
import { CANCEL_MODES, OP_STATES } from '../../model/lcm-operation';
import { LCM_OPERATION_TYPES } from '../../model/subscriptions';
import { HttpError } from '../errors';

const Link = z.object({ href: z.url() });
const KeyValuePairs = z.record(z.string(), z.unknown());
const Checksum = z.object({ algorithm: z.string().min(1), hash: z.string().min(1) });
const ProblemDetails = z.object({ type: z.string().optional(), title: z.string().optional(), status: z.number().int(), detail: z.string(), instance: z.string().optional() });
const DateTime = z.iso.datetime({ offset: true });
const UnsignedInt = z.number().int().nonnegative();

/** SOL005 §9.5.3.2 VnfPackageSoftwareImageInfo (checksum: see README "Known deviations" when the VNFD has none). */
const SoftwareImageInfo = z.object({
  id: z.string(), name: z.string(), provider: z.string(), version: z.string(), checksum: Checksum.optional(),
  containerFormat: z.string(), diskFormat: z.string(), createdAt: DateTime, minDisk: UnsignedInt, minRam: UnsignedInt, size: UnsignedInt,
  userMetadata: KeyValuePairs.optional(), imagePath: z.string(),
});

/** SOL005 §9.5.2.5 VnfPkgInfo; the VNFD's attributes are there once the package is onboarded. */
export const VnfPkgInfoSchema = z.object({
  id: z.string(),
  vnfdId: z.string().optional(), vnfProvider: z.string().optional(), vnfProductName: z.string().optional(),
  vnfSoftwareVersion: z.string().optional(), vnfdVersion: z.string().optional(), checksum: Checksum.optional(),
  softwareImages: z.array(SoftwareImageInfo).optional(),
  additionalArtifacts: z.array(z.object({ artifactPath: z.string(), checksum: Checksum, metadata: KeyValuePairs.optional() })).optional(),
  onboardingState: z.enum(ONBOARDING_STATES), operationalState: z.enum(OPERATIONAL_STATES), usageState: z.enum(USAGE_STATES),
  userDefinedData: KeyValuePairs.optional(), onboardingFailureDetails: ProblemDetails.optional(),
  _links: z.object({ self: Link, vnfd: Link.optional(), packageContent: Link }),
}).refine((p) => p.onboardingState !== 'ONBOARDED' || (p.vnfdId && p.vnfProvider && p.vnfProductName && p.vnfSoftwareVersion && p.vnfdVersion && p.checksum), {
  message: 'an ONBOARDED package has vnfdId, vnfProvider, vnfProductName, vnfSoftwareVersion, vnfdVersion and checksum',
});

const ResourceHandle = z.object({ resourceId: z.string(), vimConnectionId: z.string().optional(), vimLevelResourceType: z.string().optional() });

/** SOL003 §5.5.3.3 InstantiatedVnfInfo: what is mandatory in it, and the types of the lists. */
const InstantiatedVnfInfo = z.object({
  flavourId: z.string(),
  vnfState: z.enum(['STARTED', 'STOPPED']),
  scaleStatus: z.array(z.object({ aspectId: z.string(), scaleLevel: UnsignedInt })).optional(),
  extCpInfo: z.array(z.object({ id: z.string(), cpdId: z.string() })).optional(),
  extVirtualLinkInfo: z.array(z.object({ id: z.string(), resourceHandle: ResourceHandle })).optional(),
  extManagedVirtualLinkInfo: z.array(z.object({ id: z.string(), vnfVirtualLinkDescId: z.string() })).optional(),
  vnfcResourceInfo: z.array(z.object({ id: z.string(), vduId: z.string(), computeResource: ResourceHandle })).optional(),
  virtualLinkResourceInfo: z.array(z.object({ id: z.string(), vnfVirtualLinkDescId: z.string(), networkResource: ResourceHandle })).optional(),
  virtualStorageResourceInfo: z.array(z.object({ id: z.string(), virtualStorageDescId: z.string(), storageResource: ResourceHandle })).optional(),
});

const VimConnectionInfo = z.object({ id: z.string(), vimType: z.string() });

export function vnfInstanceSchema(v: 'v1' | 'v2') {
  return z.object({
    id: z.string(),
    vnfInstanceName: z.string().optional(), vnfInstanceDescription: z.string().optional(),
    vnfdId: z.string(), vnfProvider: z.string(), vnfProductName: z.string(), vnfSoftwareVersion: z.string(), vnfdVersion: z.string(),
    // v1 (SOL003 v2.6.1): mandatory; v2 (v3.3.1) has none, this API keeps it as an extension
    vnfPkgId: v === 'v1' ? z.string() : z.string().optional(),
    vnfConfigurableProperties: KeyValuePairs.optional(),
    vimConnectionInfo: (v === 'v1' ? z.array(VimConnectionInfo) : z.record(z.string(), VimConnectionInfo)).optional(),
    instantiationState: z.enum(INSTANTIATION_STATES),
    instantiatedVnfInfo: InstantiatedVnfInfo.optional(),
    metadata: KeyValuePairs.optional(), extensions: KeyValuePairs.optional(),
    _links: z.object({ self: Link }).catchall(Link),
  }).refine((i) => (i.instantiationState === 'INSTANTIATED') === (i.instantiatedVnfInfo !== undefined), {
    message: 'instantiatedVnfInfo is there exactly when the instance is INSTANTIATED', path: ['instantiatedVnfInfo'],
  });
}

/** SOL003 §5.5.2.13 VnfLcmOpOcc. */
export const VnfLcmOpOccSchema = z.object({
  id: z.string(), operationState: z.enum(OP_STATES), stateEnteredTime: DateTime, startTime: DateTime, vnfInstanceId: z.string(),
  grantId: z.string().optional(), operation: z.enum(LCM_OPERATION_TYPES), isAutomaticInvocation: z.boolean(),
  operationParams: z.unknown().optional(), isCancelPending: z.boolean(), cancelMode: z.enum(CANCEL_MODES).optional(),
  error: ProblemDetails.optional(),
  resourceChanges: z.object({
    affectedVnfcs: z.array(z.object({ id: z.string(), vduId: z.string(), changeType: z.string(), computeResource: ResourceHandle })).optional(),
    affectedVirtualLinks: z.array(z.object({ id: z.string(), changeType: z.string() })).optional(),
    affectedVirtualStorages: z.array(z.object({ id: z.string(), changeType: z.string() })).optional(),
  }).optional(),
  changedInfo: KeyValuePairs.optional(), changedExtConnectivity: z.array(z.object({ id: z.string() })).optional(),
  _links: z.object({ self: Link, vnfInstance: Link }).catchall(Link),
}).refine((o) => o.operationState !== 'FAILED_TEMP' || o.error !== undefined, { message: 'a FAILED_TEMP op occ says why (error)', path: ['error'] });

/** SOL003 §5.5.2.16 LccnSubscription. */
export const LccnSubscriptionSchema = z.object({
  id: z.string(), filter: KeyValuePairs.optional(), callbackUri: z.url(), verbosity: z.enum(['FULL', 'SHORT']).optional(),
  _links: z.object({ self: Link }).catchall(Link),
});

/** Where a null stands in `value` (outside free-form KeyValuePairs), if anywhere. */
function nullAt(value: unknown, path: string, freeForm: ReadonlySet<string>): string | undefined {
  if (value === null) return path;
  if (!value || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (freeForm.has(k) && !Array.isArray(value)) continue;
    const at = nullAt(v, `${path}/${k}`, freeForm);
    if (at) return at;
  }
  return undefined;
}

/**
 * The representation as rendered; with ETSI_CONFORMANCE_CHECK=1 first checked
 * against its resource's schema (a 500 naming the attribute and the rule).
 * `unread`: attributes a list's selectors leave out, whose columns were not
 * read (rules about them are not checked; the answer leaves them out).
 */
export function conformant<T>(resource: string, schema: z.ZodType, value: T, freeForm: ReadonlySet<string>, unread: readonly string[] = []): T {
  if (process.env.ETSI_CONFORMANCE_CHECK !== '1') return value;
  const at = nullAt(value, '', freeForm);
  const r = schema.safeParse(value);
  const issues = r.success ? [] : r.error.issues.filter((i) => !unread.includes(String(i.path[0])));
  if (issues.length === 0 && !at) return value;
  const why = at ? `${at}: null (an attribute without a value is absent)` : z.prettifyError(new z.ZodError(issues)).replace(/\s+/g, ' ');
  throw new HttpError(500, `ETSI_CONFORMANCE_CHECK: this ${resource} does not conform to its SOL data model: ${why.slice(0, 600)}`);
}
