/** The request schema of each LCM operation: what masks its op occ's operationParams and error (by schema, common/secret-schema.ts). */
import type { z } from 'zod';
import type { LcmOperation } from '../../workflows/definitions';
import { ChangeCurrentVnfPkgRequest } from './change-vnfpkg';
import { HealVnfRequest, InstantiateVnfRequest, ScaleVnfRequest, TerminateVnfRequest } from './vnflcm';

const REQUEST_OF: Record<LcmOperation, z.ZodType> = {
  INSTANTIATE: InstantiateVnfRequest,
  TERMINATE: TerminateVnfRequest,
  HEAL: HealVnfRequest,
  SCALE: ScaleVnfRequest,
  CHANGE_VNFPKG: ChangeCurrentVnfPkgRequest,
};

/** undefined for an operation this product does not know (then only the key-name safety net applies). */
export function requestSchemaOf(operation: string): z.ZodType | undefined {
  return (REQUEST_OF as Record<string, z.ZodType | undefined>)[operation];
}
