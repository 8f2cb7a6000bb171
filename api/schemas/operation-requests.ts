/** The request schema of each LCM operation (ops/registry.ts): what masks its op occ's operationParams and error (by schema, common/secret-schema.ts). */
import type { z } from 'zod';
import { operationModule } from '../../ops/registry';

/** undefined for an operation this product does not know (then only the key-name safety net applies). */
export function requestSchemaOf(operation: string): z.ZodType | undefined {
  return operationModule(operation)?.request;
}
