import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Before any schema is built, so every schema can be registered in the OpenAPI document.
extendZodWithOpenApi(z);

export const Identifier = z.string().min(1).max(255);
/** Free-form key/value pairs: no schema describes them, so masking falls back to key names (common/secrets.ts). */
export const KeyValuePairs = z.record(z.string(), z.unknown());
