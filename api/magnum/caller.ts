/** Who calls the Magnum API and what they may see, from the token (api/auth). */
import type { Request, Response } from 'express';
import { callerOf } from '../auth/middleware';
import type { Caller } from '../auth/tokens';
import type { Scope } from '../../store/repos/scope';

export { callerOf };
export type { Caller };

export const tokenOf = (req: Request) => String(req.get('x-auth-token') ?? '');

/** Magnum's all_tenants: an admin asking for every project (?all_tenants=True, or the X-Auth-All-Projects header). */
export function wantsAllTenants(req: Request): boolean {
  const v = String(req.query.all_tenants ?? req.get('x-auth-all-projects') ?? '').toLowerCase();
  return ['true', '1', 'yes'].includes(v);
}

/** For lists: the caller's project, or every project for an admin asking with all_tenants. */
export function listScope(req: Request, res: Response): Scope {
  const c = callerOf(res);
  return { projectId: c.projectId, all: c.isAdmin && wantsAllTenants(req) };
}

/** For lookups by uuid: admins reach any project's resource, as elsewhere in the product. */
export function lookupScope(res: Response): Scope {
  const c = callerOf(res);
  return { projectId: c.projectId, all: c.isAdmin };
}
