/**
 * Admin API for the SSH side, mounted under /sim next to the rest:
 * the endpoint settings and command faults.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { SshManager } from './manager';

const FaultBody = z.object({
  server: z.string().min(1).optional(),
  match: z.string().min(1),
  exitCode: z.number().int().min(0).max(255).optional(),
  stderr: z.string().optional(),
  stdout: z.string().optional(),
  hang: z.boolean().optional(),
  times: z.number().int().positive().optional(),
});

class SshAdminError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export function sshAdminRouter(ssh: SshManager): Router {
  const router = Router();

  router.get('/ssh', (_req, res) => {
    res.json({ enabled: ssh.enabled, port: ssh.settings.port, defaultUsers: ssh.settings.users.map((u) => u.username) });
  });

  router.post('/ssh/faults', (req, res) => {
    const parsed = FaultBody.safeParse(req.body ?? {});
    if (!parsed.success) throw new SshAdminError(400, z.prettifyError(parsed.error));
    try {
      res.status(201).json(ssh.faults.add(parsed.data));
    } catch (err) {
      throw new SshAdminError(400, `Invalid match: ${(err as Error).message}`);
    }
  });
  router.get('/ssh/faults', (_req, res) => {
    res.json({ faults: ssh.faults.list() });
  });
  router.delete('/ssh/faults/:id', (req, res) => {
    if (ssh.faults.remove(req.params.id) === 0) throw new SshAdminError(404, `No SSH fault ${req.params.id}`);
    res.status(204).end();
  });
  router.delete('/ssh/faults', (_req, res) => {
    ssh.faults.remove();
    res.status(204).end();
  });

  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof SshAdminError) res.status(err.code).json({ error: err.message });
    else next(err);
  });
  return router;
}
