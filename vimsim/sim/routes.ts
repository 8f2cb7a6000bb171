/**
 * Admin API under /sim (no auth): fault injection, runtime config, token
 * expiry, and read-only views for tests and demos.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { FaultRegistry } from '../engine/faults';
import type { StackEngine } from '../engine/stack-engine';
import type { TokenService } from '../keystone/tokens';
import type { StateStore } from '../state/store';
import type { Stats } from './stats';

class AdminError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const FaultBody = z.object({
  operation: z.enum(['create', 'update', 'delete']),
  stackName: z.string().min(1).optional(),
  mode: z.enum(['fail', 'hang']),
  reason: z.string().optional(),
  times: z.number().int().positive().optional(),
});
const ConfigBody = z.object({ delayMs: z.number().int().min(0) });

function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw new AdminError(400, z.prettifyError(parsed.error));
  return parsed.data;
}

export interface AdminDeps {
  store: StateStore;
  engine: StackEngine;
  faults: FaultRegistry;
  tokens: TokenService;
  stats: Stats;
}

export function adminRouter({ store, engine, faults, tokens, stats }: AdminDeps): Router {
  const router = Router();
  const faultView = (f: ReturnType<FaultRegistry['list']>[number]) => ({ ...f, remaining: f.times - f.used });

  router.post('/faults', (req, res) => {
    const fault = faults.add(parse(FaultBody, req.body));
    res.status(201).json(faultView(fault));
  });
  router.get('/faults', (_req, res) => {
    res.json({ faults: faults.list().map(faultView) });
  });
  router.delete('/faults/:id', (req, res) => {
    const removed = faults.remove([req.params.id]);
    if (removed.length === 0) throw new AdminError(404, `No fault ${req.params.id}`);
    engine.releaseHang(req.params.id);
    res.status(204).end();
  });
  router.delete('/faults', (_req, res) => {
    for (const fault of faults.remove()) engine.releaseHang(fault.id);
    res.status(204).end();
  });

  router.get('/config', (_req, res) => {
    res.json({ delayMs: engine.settings.delayMs, sshCidr: engine.settings.sshCidr });
  });
  router.post('/config', (req, res) => {
    engine.settings.delayMs = parse(ConfigBody, req.body).delayMs;
    res.json({ delayMs: engine.settings.delayMs, sshCidr: engine.settings.sshCidr });
  });

  router.post('/tokens/expire', (_req, res) => {
    res.json({ expired: tokens.expireAll() });
  });

  /** Every stack ever created, deleted ones included (top-level only unless ?nested=true). */
  router.get('/stacks', (req, res) => {
    const nested = req.query.nested === 'true';
    const stacks = Object.values(store.data.stacks)
      .filter((s) => nested || !s.parentId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((s) => ({
        id: s.id,
        name: s.name,
        status: `${s.action}_${s.status}`,
        statusReason: s.reason,
        projectId: s.projectId,
        parentId: s.parentId ?? null,
        createdAt: s.createdAt,
        updatedAt: s.updatedAt ?? null,
        deletedAt: s.deletedAt ?? null,
      }));
    res.json({ stacks });
  });

  /** The simulated Neutron: networks, subnets, ports with their addresses and servers. */
  router.get('/network', (_req, res) => {
    res.json(store.data.network);
  });

  router.get('/stats', (_req, res) => {
    res.json(stats.snapshot());
  });
  router.delete('/stats', (_req, res) => {
    stats.reset();
    res.status(204).end();
  });

  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof AdminError) res.status(err.code).json({ error: err.message });
    else if (err instanceof SyntaxError) res.status(400).json({ error: 'Malformed JSON body' });
    else next(err);
  });
  return router;
}
