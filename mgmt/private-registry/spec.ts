/** What the API checks before a private registry install runs (driver.ts does the install). */
import type { DriverSpec } from '../types';
import { PrivateRegistryAdditionalParams } from '../../model/private-registry-params';

export const privateRegistrySpec: DriverSpec = {
  name: 'private-registry',
  instantiateParams: PrivateRegistryAdditionalParams,
  packageFiles: (p: PrivateRegistryAdditionalParams) => {
    const image = p.private_registry_installation_param.image_path;
    return image ? [{ field: 'private_registry_installation_param.image_path', path: image }] : [];
  },
};
