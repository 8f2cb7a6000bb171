/** Small HTTP helpers shared by the API modules. */
import type { Request } from 'express';

/** Base URL the client used to reach us; links and catalog URLs are built from it, like the real services do. */
export function baseUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
