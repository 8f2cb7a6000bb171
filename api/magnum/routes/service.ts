/**
 * The rest of Magnum's /v1: stats (1.4: a project's clusters and nodes;
 * another project's for admins only), mservices (admins: the conductor, here
 * the workers polling the task queue), credentials rotate (1.12), and the
 * CADF audit log (admins: every notification and its delivery).
 */
import { Router } from 'express';
import { listCadfEvents } from '../../../store/repos/magnum/cadf';
import { deliveriesOfSources } from '../../../store/repos/notifications';
import { magnumClusters, nodegroupsOfProject } from '../../../store/repos/magnum/clusters';
import { badRequest, forbidden } from '../../../common/http-error';
import { isInProgress } from '../../../model/magnum/status';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { callerOf } from '../caller';
import { isUuidLike } from '../../../model/magnum/names';
import { findCluster } from '../lookups';
import { requireVersion } from '../microversion';
import { magnumTime } from '../views/common';

const started = new Date().toISOString();
/** A poller seen this recently means a worker is up (Magnum: service_down_time, 180 s). */
const UP_WITHIN_MS = 180_000;

export function serviceRouter(ctx: ApiContext): Router {
  const { db } = ctx;
  const r = Router();

  r.get('/stats', authorize('stats', 'read'), async (req, res) => {
    requireVersion(res, 4, 'stats');
    const c = callerOf(res);
    const project = typeof req.query.project_id === 'string' ? req.query.project_id : undefined;
    const type = typeof req.query.type === 'string' ? req.query.type : 'cluster';
    if (type !== 'cluster') throw badRequest(`Invalid type ${type}: only cluster stats exist.`);
    if (project && project !== c.projectId && !c.isAdmin) throw forbidden("Policy doesn't allow magnum-service:stats to be performed.");
    const scope = { projectId: project ?? c.projectId, all: c.isAdmin && !project };
    const clusters = await magnumClusters(db, scope);
    const ids = new Set(clusters.map((x) => x.id));
    const nodes = (await nodegroupsOfProject(db, scope)).filter((g) => ids.has(g.clusterId)).reduce((n, g) => n + g.nodeCount, 0);
    res.json({ clusters: clusters.length, nodes });
  });

  r.get('/mservices', authorize('mservices', 'read'), async (_req, res) => {
    let pollers: { lastAccessTime?: { seconds?: unknown } | null }[] = [];
    try {
      // workflow (1) and activity (2) pollers of the task queue: the workers
      for (const taskQueueType of [1, 2]) {
        const d = await ctx.temporal.workflowService.describeTaskQueue({ namespace: ctx.cfg.temporalNamespace, taskQueue: { name: ctx.cfg.taskQueue }, taskQueueType });
        pollers.push(...(d.pollers ?? []));
      }
    } catch (e) {
      ctx.log.warn({ err: { message: (e as Error).message } }, 'task queue pollers not known');
    }
    // seconds may be a protobuf Long; a poller in its first long poll may not have an access time yet
    const last = Math.max(0, ...pollers.map((p) => Number(String(p.lastAccessTime?.seconds ?? 0)) * 1000));
    const up = pollers.length > 0 && (!last || last > Date.now() - UP_WITHIN_MS);
    res.json({
      mservices: [{
        id: 1, host: ctx.cfg.magnum.publisherHost, binary: 'magnum-conductor', state: up ? 'up' : 'down', report_count: pollers.length,
        disabled: false, disabled_reason: null, created_at: magnumTime(started), updated_at: last ? magnumTime(new Date(last).toISOString()) : null,
      }],
    });
  });

  /** Magnum rotates the cluster's Keystone trust; clusters here hold no cloud credentials (no trust, no cloud provider), so there is none to renew. */
  r.patch('/credentials/:ident', authorize('clusters', 'write'), async (req, res) => {
    requireVersion(res, 12, 'credentials');
    const c = await findCluster(ctx, callerOf(res), String(req.params.ident));
    if (isInProgress(c.status)) throw badRequest(`Rotating the credentials of a cluster when status is "${c.status}" is not supported.`);
    res.status(202).json({ uuid: c.id });
  });

  r.get('/notifications', authorize('notifications', 'read'), async (req, res) => {
    const cluster = typeof req.query.cluster_id === 'string' ? req.query.cluster_id : undefined;
    if (cluster && !isUuidLike(cluster)) throw badRequest(`Invalid input for field/attribute cluster_id. Value: '${cluster}'. Expected a uuid.`);
    const limit = Math.min(Math.max(Number(req.query.limit ?? 100) || 100, 1), 1000);
    const before = typeof req.query.before === 'string' ? req.query.before : undefined;
    const rows = await listCadfEvents(db, { clusterId: cluster, before, limit });
    const next = rows.length === limit ? `${ctx.cfg.apiBaseUrl}/v1/notifications?${new URLSearchParams({ limit: String(limit), before: rows[rows.length - 1].createdAt, ...(cluster ? { cluster_id: cluster } : {}) })}` : undefined;
    const outbox = await deliveriesOfSources(db, 'cadf', rows.map((e) => e.id));
    const deliveries = (e: (typeof rows)[number]) => {
      const mine = outbox.filter((d) => d.sourceId === e.id);
      // events from before the notification outbox kept their deliveries on the event
      return mine.length ? mine.map((d) => ({
        url: d.destination, delivered: d.state === 'DELIVERED', state: d.state, attempts: d.attempts,
        ...(d.lastError ? { lastError: d.lastError } : {}), ...(d.lastAttemptAt ? { at: d.lastAttemptAt } : {}),
      })) : Object.values(e.deliveries);
    };
    res.json({ notifications: rows.map((e) => ({ ...e.notification, deliveries: deliveries(e) })), ...(next ? { next } : {}) });
  });

  return r;
}
