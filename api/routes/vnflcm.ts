/**
 * SOL003/SOL002 VNF LCM, mounted at /vnflcm/v1 and /vnflcm/v2 (same code; v2
 * answers with the Version header and keys vimConnectionInfo by id).
 */
import crypto from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { createInstance, deleteIdleInstance, findInstance, listInstances } from '../../common/db/repos/instances';
import { findOpOcc, listOpOccs } from '../../common/db/repos/op-occs';
import { packageById, packageForVnfd } from '../../common/db/repos/packages';
import { baseHotFiles, hasPackageFile, packageFile } from '../../common/db/repos/package-files';
import { callerOf } from '../auth/middleware';
import { scopeOf } from '../auth/policy';
import { authorize } from './authorize';
import { buildStack, vduCountsForLevel } from '../../infra/hot';
import type { Vnfd, VnfdFlavour } from '../../vnfpkg/vnfd-model';
import { resolveHookSpec } from '../../mgmt/specs';
import { VNF_LCM_OPERATIONS } from '../../ops/registry';
import { cancelUpdate, failUpdate, retryUpdate, rollbackUpdate } from '../../engine/contracts';
import type { ApiContext } from '../context';
import { badRequest, conflict, HttpError, notFound, unprocessable } from '../errors';
import { operatorTask, settleOrphanedOp, startOperation } from '../operations';
import { ChangeCurrentVnfPkgRequest } from '../../ops/vnflcm/change-vnfpkg/request';
import { CancelModeRequest, CreateVnfRequest } from '../../model/vnflcm';
import { HealVnfRequest } from '../../ops/vnflcm/heal/request';
import { InstantiateVnfRequest } from '../../ops/vnflcm/instantiate/request';
import { ScaleVnfRequest } from '../../ops/vnflcm/scale/request';
import { TerminateVnfRequest } from '../../ops/vnflcm/terminate/request';
import { planScale } from '../../infra/scale-plan';
import type { InstantiatedVnfInfo } from '../../infra/vnf-info';
import { parse } from '../validate';
import { ApiVersion, instanceView, opOccView } from '../views';
import { filterRows } from './filter';
import { holdChangeTarget } from '../../common/db/package-usage';
import { mappedDriver, scriptPath } from '../../mgmt/mapping';
import { resolveVim } from './vim-selection';
import { coordinationTargetProblem } from '../../coord/client';

const API_VERSIONS: Record<ApiVersion, string> = { v1: '1.3.0', v2: '2.0.0' };

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
    if (pkg.operationalState !== 'ENABLED') throw conflict(`VNF package ${pkg.id} (vnfdId ${body.vnfdId}) is DISABLED`);
    const instId = crypto.randomUUID();
    await createInstance(db, {
      id: instId, projectId: caller.projectId, vnfInstanceName: body.vnfInstanceName ?? `vnf-${instId}`, vnfInstanceDescription: body.vnfInstanceDescription ?? null,
      vnfdId: body.vnfdId, vnfPkgId: pkg.id, vnfProvider: pkg.vnfProvider!, vnfProductName: pkg.vnfProductName!,
      vnfSoftwareVersion: pkg.vnfSoftwareVersion!, vnfdVersion: pkg.vnfdVersion!, instantiationState: 'NOT_INSTANTIATED',
      vimConnectionInfo: [], metadata: body.metadata ?? {}, createdAt: new Date().toISOString(),
    });
    res.status(201).location(`${ctx.cfg.apiBaseUrl}/vnflcm/${v}/vnf_instances/${instId}`).json(instanceView(await loadInstance(res, instId), v));
  });

  r.get('/vnf_instances', readI, async (req, res) => {
    const rows = (await listInstances(db, listScope(req, res))).map((i) => instanceView(i, v));
    res.json(filterRows(rows, req.query));
  });

  r.get('/vnf_instances/:id', readI, async (req, res) => { res.json(instanceView(await loadInstance(res, id(req)), v)); });

  r.delete('/vnf_instances/:id', writeI, async (req, res) => {
    const inst = await loadInstance(res, id(req));
    const problem = await deleteIdleInstance(db, inst.id);
    if (problem) throw conflict(problem);
    res.status(204).end();
  });

  r.post(`/vnf_instances/:id/${VNF_LCM_OPERATIONS.INSTANTIATE.task.path}`, writeI, async (req, res) => {
    const body = parse(InstantiateVnfRequest, req.body);
    const inst = await loadInstance(res, id(req));
    const pkg = await packageById(db, inst.vnfPkgId);
    const vnfd = pkg?.vnfd as unknown as Vnfd | undefined;
    if (!vnfd) throw conflict(`VNF package ${inst.vnfPkgId} of instance ${inst.id} is gone`);
    await checkAgainstVnfd(ctx, inst.vnfPkgId, vnfd, body);
    await checkDriverParams(ctx, inst.vnfPkgId, vnfd.flavours[body.flavourId], body.additionalParams ?? {});
    const vim = await resolveVim(ctx, { projectId: inst.projectId, all: false }, body.vimConnectionInfo);
    const op = await startOperation(ctx, {
      scope: scope(res), instanceId: inst.id, operation: 'INSTANTIATE', params: body, write: vim.write,
      precondition: (i) => { if (i.instantiationState !== 'NOT_INSTANTIATED') throw conflict(`VNF instance ${i.id} is already INSTANTIATED`); },
      alsoWrite: () => ({ vimId: vim.vimId, vimConnectionInfo: vim.shown }),
    });
    accepted(res, op.id);
  });

  r.post(`/vnf_instances/:id/${VNF_LCM_OPERATIONS.TERMINATE.task.path}`, writeI, async (req, res) => {
    const body = parse(TerminateVnfRequest, req.body);
    const op = await startOperation(ctx, {
      scope: scope(res), instanceId: id(req), operation: 'TERMINATE', params: body,
      precondition: requireInstantiated,
    });
    accepted(res, op.id);
  });

  const requireInstantiated = (i: { id: string; instantiationState: string }) => {
    if (i.instantiationState !== 'INSTANTIATED') throw conflict(`VNF instance ${i.id} is NOT_INSTANTIATED`);
  };
  const instantiatedInfo = async (res: Response, instanceId: string) => {
    const inst = await loadInstance(res, instanceId);
    requireInstantiated(inst);
    const pkg = await packageById(db, inst.vnfPkgId);
    const info = inst.instantiatedVnfInfo as unknown as InstantiatedVnfInfo;
    return { inst, info, flavour: (pkg?.vnfd as unknown as Vnfd | undefined)?.flavours[info.flavourId] };
  };

  r.post(`/vnf_instances/:id/${VNF_LCM_OPERATIONS.HEAL.task.path}`, writeI, async (req, res) => {
    const body = parse(HealVnfRequest, req.body ?? {});
    const { info } = await instantiatedInfo(res, id(req));
    const known = new Set([...info.vnfcResourceInfo.map((v) => v.id), ...info.vnfcInfo.map((v) => v.id)]);
    ([] as string[]).concat(body.vnfcInstanceId ?? []).forEach((vnfcId, i) => {
      if (!known.has(vnfcId)) throw badRequest(`vnfcInstanceId${Array.isArray(body.vnfcInstanceId) ? `[${i}]` : ''}: "${vnfcId}" is not a VNFC of VNF instance ${id(req)}`);
    });
    const op = await startOperation(ctx, { scope: scope(res), instanceId: id(req), operation: 'HEAL', params: body, precondition: requireInstantiated });
    accepted(res, op.id);
  });

  r.post(`/vnf_instances/:id/${VNF_LCM_OPERATIONS.SCALE.task.path}`, writeI, async (req, res) => {
    const body = parse(ScaleVnfRequest, req.body);
    const { info, flavour } = await instantiatedInfo(res, id(req));
    if (!flavour) throw conflict(`the VNFD of VNF instance ${id(req)} is gone`);
    try {
      planScale(flavour, info, body);
    } catch (e) {
      const msg = (e as Error).message;
      throw msg.startsWith('aspectId') ? badRequest(msg) : unprocessable(msg);
    }
    const op = await startOperation(ctx, { scope: scope(res), instanceId: id(req), operation: 'SCALE', params: body, precondition: requireInstantiated });
    accepted(res, op.id);
  });

  r.post(`/vnf_instances/:id/${VNF_LCM_OPERATIONS.CHANGE_VNFPKG.task.path}`, writeI, async (req, res) => {
    if (!VNF_LCM_OPERATIONS.CHANGE_VNFPKG.task.versions.includes(v)) throw notFound(`change_vnfpkg is a /vnflcm/${VNF_LCM_OPERATIONS.CHANGE_VNFPKG.task.versions.join(', ')} task`);
    const body = parse(ChangeCurrentVnfPkgRequest, req.body);
    const { inst, info } = await instantiatedInfo(res, id(req));
    if (body.additionalParams.upgrade_type === 'BlueGreen') {
      throw unprocessable('additionalParams.upgrade_type: BlueGreen is not supported yet on OpenStack; use RollingUpdate');
    }
    const target = await packageForVnfd(db, { projectId: inst.projectId, all: false }, body.vnfdId);
    if (!target) throw unprocessable(`vnfdId: no onboarded VNF package of the instance's project has vnfdId ${body.vnfdId}`);
    if (target.operationalState !== 'ENABLED') throw conflict(`VNF package ${target.id} (vnfdId ${body.vnfdId}) is DISABLED`);
    if (target.id === inst.vnfPkgId) throw unprocessable(`vnfdId: VNF instance ${inst.id} already uses package ${target.id}`);
    const flavour = (target.vnfd as unknown as Vnfd).flavours[info.flavourId];
    if (!flavour) throw unprocessable(`vnfdId: the new VNFD has no flavour ${info.flavourId}, the instance's flavour`);
    body.additionalParams.vdu_params.forEach((p, i) => {
      if (!flavour.vdus[p.vdu_id]) throw badRequest(`additionalParams.vdu_params[${i}].vdu_id: "${p.vdu_id}" is not a VDU of flavour ${info.flavourId}`);
      for (const side of ['old_vnfc_param', 'new_vnfc_param'] as const) {
        const param = p[side];
        const problem = param && coordinationTargetProblem({ endpoint: param.endpoint ?? '', authentication: param.authentication });
        if (problem) throw badRequest(`additionalParams.vdu_params[${i}].${side}: ${problem}`);
      }
    });
    await checkCoordinateScripts(ctx, body.additionalParams, { new: target.id, old: inst.vnfPkgId });
    const op = await startOperation(ctx, {
      scope: scope(res), instanceId: inst.id, operation: 'CHANGE_VNFPKG', params: body, precondition: requireInstantiated,
      // the target stays IN_USE until the op ends: it cannot be deleted in the middle of the rolling update
      write: async (q) => { const problem = await holdChangeTarget(q, target.id); if (problem) throw conflict(problem); },
    });
    accepted(res, op.id);
  });

  const readO = authorize('vnf_lcm_op_occs', 'read');
  const writeO = authorize('vnf_lcm_op_occs', 'write');
  r.get('/vnf_lcm_op_occs', readO, async (req, res) => {
    const rows = (await listOpOccs(db, listScope(req, res))).map((o) => opOccView(o, v, ctx.cfg, ctx.box));
    res.json(filterRows(rows, req.query, ['operationState', 'vnfInstanceId', 'operation']));
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

/** 400 before anything is written when the request does not fit the VNFD. */
async function checkAgainstVnfd(ctx: ApiContext, packageId: string, vnfd: Vnfd, body: InstantiateVnfRequest): Promise<void> {
  const flavour = vnfd.flavours[body.flavourId];
  if (!flavour) throw badRequest(`flavourId: "${body.flavourId}" is not a flavour of VNFD ${vnfd.vnfdId} (${Object.keys(vnfd.flavours).join(', ')})`);
  if (body.instantiationLevelId && !flavour.instantiationLevels.levels[body.instantiationLevelId]) {
    throw badRequest(`instantiationLevelId: "${body.instantiationLevelId}" is not a level of flavour ${flavour.flavourId} (${Object.keys(flavour.instantiationLevels.levels).join(', ') || 'none'})`);
  }
  (body.extVirtualLinks ?? []).forEach((l, i) => l.extCps.forEach((cp, j) => {
    const cpd = flavour.cps[cp.cpdId];
    if (!cpd) throw badRequest(`extVirtualLinks[${i}].extCps[${j}].cpdId: "${cp.cpdId}" is not a CP of flavour ${flavour.flavourId}`);
  }));
  const files = await baseHotFiles(ctx.db, packageId);
  try {
    buildStack(vnfd, flavour, files, body, vduCountsForLevel(flavour, body.instantiationLevelId));
  } catch (e) {
    throw badRequest(`the request does not fit the VNFD: ${(e as Error).message}`);
  }
}

/**
 * 422 when a coordinate script named in a change_vnfpkg request is not a file of its package
 * (the new package's for the update, the current one's for the rollback): the workflow could
 * not plan the operation. Names mapped to the built-in coordination action need no file.
 */
async function checkCoordinateScripts(ctx: ApiContext, params: ChangeCurrentVnfPkgRequest['additionalParams'], packages: { new: string; old: string }): Promise<void> {
  for (const side of ['new', 'old'] as const) {
    const field = `lcm-operation-coordinate-${side}-vnf` as const;
    const path = scriptPath(params[field]);
    if (!path || mappedDriver(path) === 'coordination') continue;
    if (!(await hasPackageFile(ctx.db, packages[side], path))) throw unprocessable(`additionalParams.${field}: "${params[field]}" is not a file of VNF package ${packages[side]} (the ${side === 'new' ? 'target' : 'current'} package)`);
  }
}

/** Built-in Mgmt Drivers bound to the flavour's hooks check their additionalParams here (400 before any stack exists). */
async function checkDriverParams(ctx: ApiContext, packageId: string, flavour: VnfdFlavour, additionalParams: Record<string, unknown>): Promise<void> {
  const readFile = (p: string) => packageFile(ctx.db, packageId, p);
  const seen = new Set<string>();
  for (const binding of Object.values(flavour.hooks)) {
    const runner = await resolveHookSpec(binding!, readFile);
    if (runner.kind !== 'builtin' || !runner.driver.instantiateParams || seen.has(runner.driver.name)) continue;
    seen.add(runner.driver.name);
    const params = parse(runner.driver.instantiateParams, additionalParams, 'additionalParams', ['additionalParams']);
    for (const f of runner.driver.packageFiles?.(params) ?? []) {
      if (!(await hasPackageFile(ctx.db, packageId, f.path))) throw badRequest(`additionalParams.${f.field}: "${f.path}" is not a file of the VNF package`);
    }
  }
}
