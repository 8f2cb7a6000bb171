/** The HealVnfRequest body. */
import { z } from 'zod';
import { Identifier, KeyValuePairs } from '../../../model/common';

/** SOL002 (vnfcInstanceId given; the seed writes a single id as a string) and SOL003 (whole VNF) heal. */
export const HealVnfRequest = z.object({
  vnfcInstanceId: z.union([Identifier, z.array(Identifier).min(1)]).optional(),
  cause: z.string().max(1024).optional(),
  additionalParams: KeyValuePairs.optional(),
  healScript: z.string().optional(),
});
export type HealVnfRequest = z.infer<typeof HealVnfRequest>;
