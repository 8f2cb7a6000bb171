/** The TerminateVnfRequest (SOL003 5.5.2.8) body. */
import { z } from 'zod';
import { KeyValuePairs } from '../../../model/common';

export const TerminateVnfRequest = z.object({
  terminationType: z.enum(['FORCEFUL', 'GRACEFUL']),
  gracefulTerminationTimeout: z.number().int().min(0).max(86_400).optional(),
  additionalParams: KeyValuePairs.optional(),
});
export type TerminateVnfRequest = z.infer<typeof TerminateVnfRequest>;
