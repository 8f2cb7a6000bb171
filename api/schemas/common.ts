import { z } from 'zod';

export const Identifier = z.string().min(1).max(255);
export const KeyValuePairs = z.record(z.string(), z.unknown());
