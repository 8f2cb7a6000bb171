/** Database rows -> the JSON the ETSI APIs answer with (field names as Tacker/SOL00x). */
import type { Config } from '../common/config';
import type { InstanceRow, OpOccRow, PackageRow } from '../store/repos/rows';
import { workflowUiLink } from '../common/temporal';
import { maskOpError } from '../common/secret-errors';
import { maskBySchema } from '../common/secret-schema';
import type { SecretBox } from '../common/secrets';
import { InstantiateAdditionalParams } from '../model/additional-params';
import { requestSchemaOf } from '../ops/registry';
import { VimConnectionInfo } from '../model/vnflcm';
import { conformant, VnfLcmOpOccSchema, vnfInstanceSchema, VnfPkgInfoSchema } from './schemas/etsi-resources';

const VNF_INSTANCE_V1 = vnfInstanceSchema('v1');
const VNF_INSTANCE_V2 = vnfInstanceSchema('v2');

export type ApiVersion = 'v1' | 'v2';

/** `{href}` with an absolute URI (SOL013 Link: "URI of the referenced resource"), built on API_BASE_URL. */
export type Href = { href: string };
/** Makes the links of one answer: paths below the API's base URL become absolute URIs. */
export function linker(cfg: Pick<Config, 'apiBaseUrl'>): (path: string) => Href {
  const root = cfg.apiBaseUrl.replace(/\/+$/, '');
  return (path) => ({ href: `${root}${path}` });
}

/**
 * SOL013 §4.4: an attribute without a value is absent, not null (clients with
 * strict schemas reject nulls). Free-form KeyValuePairs are the user's data and
 * stay as given, and so do the request's echo and a modification's changes
 * (there null means "removed", as in the JSON merge patch that made them).
 */
export const FREE_FORM: ReadonlySet<string> = new Set(['metadata', 'extensions', 'userDefinedData', 'additionalParams', 'vnfConfigurableProperties', 'userMetadata', 'operationParams', 'changedInfo', 'interfaceInfo', 'accessInfo', 'extra', 'filter']);
export function absentNotNull<T>(value: T): T {
  if (Array.isArray(value)) return value.map(absentNotNull) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    out[k] = FREE_FORM.has(k) ? v : absentNotNull(v);
  }
  return out as T;
}

/** `unread`: attributes a list's selectors leave out, whose columns were not read. */
export function packageView(p: PackageRow, cfg: Pick<Config, 'apiBaseUrl'>, unread?: readonly string[]) {
  const href = linker(cfg);
  const base = `/vnfpkgm/v1/vnf_packages/${p.id}`;
  const onboarded = p.onboardingState === 'ONBOARDED';
  return conformant('VnfPkgInfo', VnfPkgInfoSchema, absentNotNull({
    id: p.id,
    ...(onboarded ? {
      vnfdId: p.vnfdId, vnfProvider: p.vnfProvider, vnfProductName: p.vnfProductName,
      vnfSoftwareVersion: p.vnfSoftwareVersion, vnfdVersion: p.vnfdVersion, checksum: p.checksum,
      // packages onboarded before these mandatory attributes were derived show SOL005's zeros and the package's time
      softwareImages: (p.softwareImages ?? []).map((img) => ({ createdAt: p.createdAt, minDisk: 0, minRam: 0, size: 0, ...(img as object) })),
      additionalArtifacts: p.additionalArtifacts ?? [],
    } : {}),
    onboardingState: p.onboardingState,
    operationalState: p.operationalState,
    usageState: p.usageState,
    userDefinedData: p.userDefinedData,
    ...(p.onboardingFailureDetails ? { onboardingFailureDetails: p.onboardingFailureDetails } : {}),
    _links: { self: href(base), vnfd: href(`${base}/vnfd`), packageContent: href(`${base}/package_content`) },
  }), FREE_FORM, unread);
}

export function instanceView(i: InstanceRow, v: ApiVersion, cfg: Pick<Config, 'apiBaseUrl'>, unread?: readonly string[]) {
  const href = linker(cfg);
  const base = `/vnflcm/${v}/vnf_instances/${i.id}`;
  const instantiated = i.instantiationState === 'INSTANTIATED';
  const links: Record<string, Href> = { self: href(base) };
  if (instantiated) {
    for (const [k, task] of [['terminate', 'terminate'], ['scale', 'scale'], ['heal', 'heal'], ['changeExtConn', 'change_ext_conn']]) links[k] = href(`${base}/${task}`);
  } else {
    links.instantiate = href(`${base}/instantiate`);
  }
  // v2 keys vimConnectionInfo by id; v1 lists it (seed 000 shows the v1 list).
  // Masked again when shown (rows written before masking by schema): masking is idempotent.
  const shownVci = i.vimConnectionInfo.map((c) => maskBySchema(VimConnectionInfo, c));
  const vci = v === 'v2' ? Object.fromEntries(shownVci.map((c) => [String(c.id), c])) : shownVci;
  const info = i.instantiatedVnfInfo;
  const shownInfo = info ? { ...info, ...(info.additionalParams ? { additionalParams: maskBySchema(InstantiateAdditionalParams, info.additionalParams) } : {}) } : info;
  return conformant('VnfInstance', v === 'v1' ? VNF_INSTANCE_V1 : VNF_INSTANCE_V2, absentNotNull({
    id: i.id,
    vnfInstanceName: i.vnfInstanceName,
    vnfInstanceDescription: i.vnfInstanceDescription,
    vnfdId: i.vnfdId,
    vnfProvider: i.vnfProvider,
    vnfProductName: i.vnfProductName,
    vnfSoftwareVersion: i.vnfSoftwareVersion,
    vnfdVersion: i.vnfdVersion,
    vnfPkgId: i.vnfPkgId,
    vimConnectionInfo: vci,
    instantiationState: i.instantiationState,
    ...(instantiated && shownInfo ? { instantiatedVnfInfo: shownInfo } : {}),
    ...(i.vnfConfigurableProperties ? { vnfConfigurableProperties: i.vnfConfigurableProperties } : {}),
    metadata: i.metadata,
    ...(i.extensions ? { extensions: i.extensions } : {}),
    _links: links,
  }), FREE_FORM, unread);
}

/**
 * `box` opens the sealed request so that every secret value of it is masked
 * in the error too (a failing step may echo one); without it only the
 * key-name and URL safety net applies to the error.
 */
export function opOccView(o: OpOccRow, v: ApiVersion, cfg: Config, box?: SecretBox, unread?: readonly string[]) {
  const href = linker(cfg);
  const base = `/vnflcm/${v}/vnf_lcm_op_occs/${o.id}`;
  const links: Record<string, Href> = {
    self: href(base),
    vnfInstance: href(`/vnflcm/${v}/vnf_instances/${o.vnfInstanceId}`),
    temporalWorkflow: { href: workflowUiLink(cfg, o.id) },
  };
  if (o.operationState === 'FAILED_TEMP') {
    for (const t of ['retry', 'rollback', 'fail']) links[t] = href(`${base}/${t}`);
  }
  if (['STARTING', 'PROCESSING', 'ROLLING_BACK'].includes(o.operationState)) links.cancel = href(`${base}/cancel`);
  return conformant('VnfLcmOpOcc', VnfLcmOpOccSchema, absentNotNull({
    id: o.id,
    operationState: o.operationState,
    stateEnteredTime: o.stateEnteredTime,
    startTime: o.startTime,
    vnfInstanceId: o.vnfInstanceId,
    operation: o.operation,
    isAutomaticInvocation: o.isAutomaticInvocation,
    operationParams: maskBySchema(requestSchemaOf(o.operation), o.operationParams),
    isCancelPending: o.isCancelPending,
    ...(o.cancelMode ? { cancelMode: o.cancelMode } : {}),
    ...(o.error ? { error: maskOpError(o.error, requestSchemaOf(o.operation), box ? requestOf(box, o) : o.operationParams) } : {}),
    ...(o.resourceChanges ? { resourceChanges: o.resourceChanges } : {}),
    ...(o.changedInfo ? { changedInfo: o.changedInfo } : {}),
    ...(o.changedExtConnectivity ? { changedExtConnectivity: o.changedExtConnectivity } : {}),
    ...(o.lcmCoordinations ? { lcmCoordinations: o.lcmCoordinations } : {}),
    ...(o.rejectedLcmCoordinations ? { rejectedLcmCoordinations: o.rejectedLcmCoordinations } : {}),
    ...(o.currentStep ? { currentStep: o.currentStep } : {}),
    ...(o.traceId ? { traceId: o.traceId } : {}),
    _links: links,
  }), FREE_FORM, unread);
}

/** The op's request with its secrets (to find them in texts); an unreadable seal leaves only the masked params. */
function requestOf(box: SecretBox, o: OpOccRow): unknown {
  try {
    return box.openJson(o.operationParamsSealed);
  } catch {
    return o.operationParams;
  }
}
