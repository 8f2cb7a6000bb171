/**
 * SOL003/SOL002 VNF LCM, mounted at /vnflcm/v1 and /vnflcm/v2 (same code; v2
 * answers with the Version header and keys vimConnectionInfo by id).
 */
import crypto from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { createInstance, deleteIdleInstance, findInstance, INSTANCE_LIST, pageOfInstances } from '../../store/repos/instances';
import { findOpOcc, OP_OCC_LIST, pageOfOpOccs } from '../../store/repos/op-occs';
import { packageForVnfd } from '../../store/repos/packages';
import { parse } from '../../common/validate';
import { cancelUpdate, failUpdate, retryUpdate, rollbackUpdate } from '../../engine/contracts';
import type { LcmOperation } from '../../model/lcm-operation';
import { CancelModeRequest, CreateVnfRequest } from '../../model/vnflcm';
import { taskRoute, type OperationModule } from '../../ops/operation';
import { VNF_LCM_OPERATIONS } from '../../ops/registry';
import { callerOf } from '../auth/middleware';
import { scopeOf } from '../auth/policy';
import type { ApiContext } from '../context';
import { conflict, HttpError, notFound, unprocessable } from '../errors';
import { operatorTask, settleOrphanedOp, startOperation } from '../operations';
import { ApiVersion, instanceView, opOccView } from '../views';
import { authorize } from './authorize';
import { pageRequest, sendPage } from './filter';
import { attributeSelector, type SelectorRules } from './selectors';
import { queueIdentifierNotification, sendQueued } from './notifications';
import { subscriptionsRouter } from './subscriptions';
import type { OutboxRow } from '../../store/repos/notifications';
import type { VimRow } from '../../store/repos/vims';
import { actingVimId } from '../vim-access';
import { checkIfMatch, etagOf } from '../etag';

const API_VERSIONS: Record<ApiVersion, string> = { v1: '1.3.0', v2: '2.0.0' };

/**
 * SOL003 §5.4.2.3.2 and §5.4.12.3.2: what the instance and op occ lists leave out unless the attribute selectors
 * ask. Here every optional complex attribute is also one SOL003 excludes by default: one list serves both rules.
 */
const sameRules = (attrs: readonly string[]): SelectorRules => ({ optionalComplex: attrs, defaultExcluded: attrs });
const INSTANCE_SELECTORS = sameRules(['vnfConfigurableProperties', 'vimConnectionInfo', 'instantiatedVnfInfo', 'metadata', 'extensions']);
const OP_OCC_SELECTORS = sameRules(['operationParams', 'error', 'resourceChanges', 'changedInfo', 'changedExtConnectivity', 'lcmCoordinations', 'rejectedLcmCoordinations']);

export function vnflcmRouter(ctx: ApiContext, v: ApiVersion): Router {
  const { db } = ctx;
  const r = Router();

  r.use((req, res, next) => {
    res.set('Version', API_VERSIONS[v]);
    const asked = req.get('Version');
    if (asked && asked.split('.')[0] !== API_VERSIONS[v].split('.')[0]) {
      throw new HttpError(406, `this endpoint serves API version ${API_VERSIONS[v]}; the request asked for ${asked}`);
    }
    next();
  });

  /** The caller's project (admins: any project's) instance, else 404 — never 403: others' ids are not revealed. */
  const loadInstance = async (res: Response, id: string) => {
    const i = await findInstance(db, scopeOf(callerOf(res)), id);
    if (!i) throw notFound(`VNF instance ${id} not found`);
    return i;
  };
  const loadOpOcc = async (res: Response, id: string) => {
    const o = await findOpOcc(db, scopeOf(callerOf(res)), id);
    if (!o) throw notFound(`VNF LCM operation occurrence ${id} not found`);
    return o;
  };
  const scope = (res: Response) => scopeOf(callerOf(res));
  const listScope = (req: Request, res: Response) => scopeOf(callerOf(res), req.query.all_projects === 'true');
  const id = (req: Request) => String(req.params.id);
  const readI = authorize('vnf_instances', 'read');
  const writeI = authorize('vnf_instances', 'write');
  const accepted = (res: Response, opOccId: string) =>
    res.status(202).location(`${ctx.cfg.apiBaseUrl}/vnflcm/${v}/vnf_lcm_op_occs/${opOccId}`).end();

  r.get('/api_versions', (_req, res) => { res.json({ uriPrefix: `/vnflcm/${v}`, apiVersions: [{ version: API_VERSIONS[v], isDeprecated: false }] }); });

  r.post('/vnf_instances', writeI, async (req, res) => {
    const body = parse(CreateVnfRequest, req.body);
    const caller = callerOf(res);
    const pkg = await packageForVnfd(db, { projectId: caller.projectId, all: false }, body.vnfdId);
    if (!pkg) throw unprocessable(`vnfdId: no onboarded VNF package of your project has vnfdId ${body.vnfdId}`);
    // SOL003 §5.4.2.3.1: a package that is not ENABLED is a 422, as one that does not exist
    if (pkg.operationalState !== 'ENABLED') throw unprocessable(`vnfdId: the VNF package ${pkg.id} of vnfdId ${body.vnfdId} is DISABLED`);
    const instId = crypto.randomUUID();
    const { instance, also: queued } = await createInstance(db, {
      id: instId, projectId: caller.projectId, vnfInstanceName: body.vnfInstanceName ?? `vnf-${instId}`, vnfInstanceDescription: body.vnfInstanceDescription ?? null,
      vnfdId: body.vnfdId, vnfPkgId: pkg.id, vnfProvider: pkg.vnfProvider!, vnfProductName: pkg.vnfProductName!,
      vnfSoftwareVersion: pkg.vnfSoftwareVersion!, vnfdVersion: pkg.vnfdVersion!, instantiationState: 'NOT_INSTANTIATED',
      vimConnectionInfo: [], metadata: body.metadata ?? {}, createdAt: new Date().toISOString(),
    }, (q, inst) => queueIdentifierNotification(q, ctx.cfg, inst, 'VnfIdentifierCreationNotification'), ctx.cfg.quotas.instances);
    await sendQueued(ctx, queued);
    res.status(201).location(`${ctx.cfg.apiBaseUrl}/vnflcm/${v}/vnf_instances/${instId}`).json(instanceView(instance, v, ctx.cfg));
  });

  r.get('/vnf_instances', readI, async (req, res) => {
    const shape = attributeSelector(req.query, INSTANCE_SELECTORS);
    const asked = pageRequest(req.query, INSTANCE_LIST, ctx.cfg.limits.listPageSize, { selectors: INSTANCE_SELECTORS });
    const page = await pageOfInstances(db, listScope(req, res), asked);
    sendPage(req, res, ctx.cfg.apiBaseUrl, page.rows.map((i) => shape(instanceView(i, v, ctx.cfg, asked.omit))), page.next);
  });

  r.get('/vnf_instances/:id', readI, async (req, res) => {
    const view = instanceView(await loadInstance(res, id(req)), v, ctx.cfg);
    res.set('ETag', etagOf(view)).json(view);
  });

  r.delete('/vnf_instances/:id', writeI, async (req, res) => {
    const inst = await loadInstance(res, id(req));
    let queued: OutboxRow[] = [];
    const problem = await deleteIdleInstance(db, inst.id, async (q, i) => { queued = await queueIdentifierNotification(q, ctx.cfg, i, 'VnfIdentifierDeletionNotification'); });
    if (problem) throw conflict(problem);
    await sendQueued(ctx, queued);
    res.status(204).end();
  });

  // Every operation's task (ops/registry.ts), a POST on a task resource or a PATCH of the instance:
  // validate, precheck (4xx before anything is written), record and start.
  for (const [operation, mod] of Object.entries(VNF_LCM_OPERATIONS) as [LcmOperation, OperationModule][]) {
    const route = mod.task.method === 'PATCH' ? r.patch.bind(r) : r.post.bind(r);
    route(taskRoute(mod.task), writeI, async (req, res) => {
      if (!mod.task.versions.includes(v)) throw notFound(`${mod.task.method} ${taskRoute(mod.task)} is on /vnflcm/${mod.task.versions.join(', ')} only`);
      const body = parse(mod.request, req.body ?? {}) as Record<string, unknown>;
      const instance = await loadInstance(res, id(req));
      // a PATCH of the instance (modify) with If-Match: only on the instance as the client read it
      if (mod.task.method === 'PATCH') checkIfMatch(req, instanceView(instance, v, ctx.cfg));
      const who = { caller: callerOf(res), token: String(req.get('x-auth-token') ?? '') };
      const actingVim = (vim: VimRow) => actingVimId(ctx, who, vim, instance.projectId);
      const plan = await mod.precheck({ db, box: ctx.box, cfg: ctx.cfg, scope: scope(res), instance, request: body, version: v, actingVim });
      const op = await startOperation(ctx, { scope: scope(res), instanceId: instance.id, operation, params: body, ...plan });
      accepted(res, op.id);
    });
  }

  r.use(subscriptionsRouter(ctx, v));

  const readO = authorize('vnf_lcm_op_occs', 'read');
  const writeO = authorize('vnf_lcm_op_occs', 'write');
  r.get('/vnf_lcm_op_occs', readO, async (req, res) => {
    const shape = attributeSelector(req.query, OP_OCC_SELECTORS);
    const asked = pageRequest(req.query, OP_OCC_LIST, ctx.cfg.limits.listPageSize, { plainFields: ['operationState', 'vnfInstanceId', 'operation'], selectors: OP_OCC_SELECTORS });
    const page = await pageOfOpOccs(db, listScope(req, res), asked);
    sendPage(req, res, ctx.cfg.apiBaseUrl, page.rows.map((o) => shape(opOccView(o, v, ctx.cfg, ctx.box, asked.omit))), page.next);
  });

  r.get('/vnf_lcm_op_occs/:id', readO, async (req, res) => { res.json(opOccView(await loadOpOcc(res, id(req)), v, ctx.cfg, ctx.box)); });

  const needsFailedTemp = async (res: Response, opId: string, task: string) => {
    const o = await loadOpOcc(res, opId);
    if (o.operationState !== 'FAILED_TEMP') throw conflict(`${task} needs FAILED_TEMP; operation ${opId} is ${o.operationState}`);
  };
  r.post('/vnf_lcm_op_occs/:id/retry', writeO, async (req, res) => {
    await needsFailedTemp(res, id(req), 'retry');
    await operatorTask(ctx, id(req), retryUpdate.name);
    res.status(202).end();
  });
  r.post('/vnf_lcm_op_occs/:id/rollback', writeO, async (req, res) => {
    await needsFailedTemp(res, id(req), 'rollback');
    await operatorTask(ctx, id(req), rollbackUpdate.name);
    res.status(202).end();
  });
  r.post('/vnf_lcm_op_occs/:id/fail', writeO, async (req, res) => {
    // Also the way out for an op whose workflow ended without a final state (terminated in the Web UI).
    const settled = (await loadOpOcc(res, id(req))).operationState !== 'FAILED_TEMP' && (await settleOrphanedOp(ctx, id(req)));
    if (!settled) {
      await needsFailedTemp(res, id(req), 'fail');
      await operatorTask(ctx, id(req), failUpdate.name);
    }
    res.json(opOccView(await loadOpOcc(res, id(req)), v, ctx.cfg, ctx.box));
  });
  r.post('/vnf_lcm_op_occs/:id/cancel', writeO, async (req, res) => {
    const body = parse(CancelModeRequest, req.body ?? {});
    const o = await loadOpOcc(res, id(req));
    if (!['STARTING', 'PROCESSING', 'ROLLING_BACK'].includes(o.operationState)) {
      throw conflict(`cancel needs STARTING, PROCESSING or ROLLING_BACK; operation ${o.id} is ${o.operationState}`);
    }
    await operatorTask(ctx, o.id, cancelUpdate.name, [body.cancelMode]);
    res.status(202).end();
  });

  return r;
}
