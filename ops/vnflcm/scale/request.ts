/** The ScaleVnfRequest (SOL003 5.5.2.5) body. */
import { z } from 'zod';
import { Identifier, KeyValuePairs } from '../../../model/common';

export const ScaleVnfRequest = z.object({
  type: z.enum(['SCALE_OUT', 'SCALE_IN']),
  aspectId: Identifier,
  numberOfSteps: z.number().int().min(1).max(1000).optional(),
  additionalParams: KeyValuePairs.optional(),
});
export type ScaleVnfRequest = z.infer<typeof ScaleVnfRequest>;
