/** SOL005 VNF package management request bodies. */
import { z } from 'zod';
import { KeyValuePairs } from '../../model/common';

export const CreateVnfPkgInfoRequest = z.strictObject({
  userDefinedData: KeyValuePairs.optional(),
});

export const VnfPkgInfoModifications = z.strictObject({
  operationalState: z.enum(['ENABLED', 'DISABLED']).optional(),
  userDefinedData: KeyValuePairs.optional(),
}).refine((m) => m.operationalState !== undefined || m.userDefinedData !== undefined, {
  message: 'at least one of operationalState, userDefinedData is required',
});
