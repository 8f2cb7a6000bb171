/** additionalParams.private_registry_installation_param, exactly as seed 000's table. */
import { z } from 'zod';
import { secret, secretUrl } from '../common/secret-schema';

/**
 * The proxy values end up inside apt.conf and a systemd drop-in on the VNFC
 * (steps.ts), so only plain values are accepted: an http(s) URL of URL
 * characters (credentials percent-encoded) — no quotes, backslashes, spaces,
 * newlines or other control characters that could end the quoted value.
 */
export const PROXY_URL = /^https?:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&()*+,;=%]+$/;
/** Hosts, domains, CIDRs and ports, comma separated. */
export const NO_PROXY = /^[A-Za-z0-9\-._:/*,[\]%]*$/;
const proxyUrl = () => z.string().min(1).regex(PROXY_URL, 'must be a plain http:// or https:// URL (no quotes, spaces or control characters)');

export const ProxyParam = z.strictObject({
  http_proxy: secretUrl(proxyUrl()).optional(), // may carry user:password@ (masked in op occs)
  https_proxy: secretUrl(proxyUrl()).optional(),
  no_proxy: z.string().regex(NO_PROXY, 'must be a comma-separated list of hosts, domains or CIDRs (no quotes, spaces or control characters)').optional(),
});

export const PrivateRegistryInstallationParam = z.object({
  ssh_cp_name: z.string().min(1),
  ssh_username: z.string().min(1),
  ssh_password: secret(z.string().min(1)),
  image_path: z.string().min(1).optional(),
  /** A string in the seed ("5000"); a number is accepted too. */
  port_no: z.union([z.string().regex(/^\d{1,5}$/, 'must be a TCP port number'), z.number().int()])
    .transform(Number).refine((n) => n >= 1 && n <= 65535, 'must be between 1 and 65535').optional(),
  proxy: ProxyParam.optional(),
});
export type PrivateRegistryInstallationParam = z.infer<typeof PrivateRegistryInstallationParam>;

/** What the driver needs in InstantiateVnfRequest.additionalParams. */
export const PrivateRegistryAdditionalParams = z.object({
  private_registry_installation_param: PrivateRegistryInstallationParam,
});
export type PrivateRegistryAdditionalParams = z.infer<typeof PrivateRegistryAdditionalParams>;
