/** Links in responses are built from the address the client used, as the real services do behind a proxy-less setup. */
import type { Request } from 'express';

export function hostUrl(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
