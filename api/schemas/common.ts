import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Before any schema is built, so every schema can be registered in the OpenAPI document.
extendZodWithOpenApi(z);

export const Identifier = z.string().min(1).max(255);
export const KeyValuePairs = z.record(z.string(), z.unknown());
