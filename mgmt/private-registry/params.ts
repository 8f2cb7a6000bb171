/** additionalParams.private_registry_installation_param, exactly as seed 000's table. */
import { z } from 'zod';

export const ProxyParam = z.strictObject({
  http_proxy: z.string().min(1).optional(),
  https_proxy: z.string().min(1).optional(),
  no_proxy: z.string().optional(),
});

export const PrivateRegistryInstallationParam = z.object({
  ssh_cp_name: z.string().min(1),
  ssh_username: z.string().min(1),
  ssh_password: z.string().min(1),
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
