/** Route guard: the caller's roles must allow the rule (policy.ts), else 403. */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { callerOf } from '../auth/middleware';
import type { Access, Policy, Resource } from '../auth/policy';
import { HttpError } from '../errors';

let policy: Policy | undefined;

/** Set once at API start (api/app.ts). */
export function usePolicy(p: Policy): void {
  policy = p;
}

export function authorize(resource: Resource, access: Access): RequestHandler {
  const rule = `${resource}:${access}` as const;
  return (_req: Request, res: Response, next: NextFunction) => {
    if (!policy) throw new Error('no policy loaded');
    if (!policy.allows(callerOf(res), rule)) throw new HttpError(403, `policy does not allow ${rule} for your roles`, 'Forbidden');
    next();
  };
}
