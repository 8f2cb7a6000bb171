/** Token check in front of every Heat call, like keystonemiddleware. */
import type { NextFunction, Request, Response } from 'express';
import type { TokenService } from '../keystone/tokens';
import type { Stats } from '../sim/stats';
import { heatErrors } from './errors';

export function requireToken(tokens: TokenService, stats: Stats) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const token = tokens.validate(req.get('X-Auth-Token'));
    if (!token) {
      stats.track('heat.unauthorized', res);
      res.set('WWW-Authenticate', `Keystone uri="${req.protocol}://${req.get('host')}/identity"`);
      throw heatErrors.unauthorized();
    }
    const tenant = String(req.params.tenant);
    if (!token.projectId) throw heatErrors.unauthorized('The token is not scoped to a project.');
    if (token.projectId !== tenant) {
      throw heatErrors.forbidden(`The token's project ${token.projectId} does not match the project ${tenant} in the URL.`);
    }
    next();
  };
}
