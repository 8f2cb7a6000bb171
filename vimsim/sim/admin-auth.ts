/**
 * The /sim API changes the machines under every project (faults, console
 * host keys, runtime settings) and shows all of them: only the cloud's
 * admin may call it, with a Keystone token holding the admin role in the
 * admin project (not an admin of some other project).
 */
import type { RequestHandler } from 'express';
import { KeystoneUnavailable, type KeystoneAuth } from '../auth/keystone';

export function requireCloudAdmin(auth: KeystoneAuth, adminProject: string): RequestHandler {
  return async (req, res, next) => {
    const token = req.get('x-auth-token');
    let ctx;
    try {
      ctx = token ? await auth.validate(token) : undefined;
    } catch (e) {
      if (!(e instanceof KeystoneUnavailable)) throw e;
      return void res.status(503).json({ error: { code: 503, title: 'Service Unavailable', message: 'Keystone cannot validate the token now; try again.' } });
    }
    if (!ctx) {
      res.set('WWW-Authenticate', `Keystone uri="${auth.authUrl}"`);
      return void res.status(401).json({ error: { code: 401, title: 'Unauthorized', message: `The simulator's /sim API needs an X-Auth-Token of the cloud's admin (role admin in project ${adminProject}).` } });
    }
    if (!ctx.isAdmin || ctx.projectName !== adminProject) {
      return void res.status(403).json({ error: { code: 403, title: 'Forbidden', message: `The simulator's /sim API is for the cloud's admin only (role admin in project ${adminProject}).` } });
    }
    next();
  };
}
