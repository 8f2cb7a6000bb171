/** SOL005 VNF package management: /vnfpkgm/v1. Onboarding runs as a workflow. */
import crypto from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import AdmZip from 'adm-zip';
import { and, eq, inArray } from 'drizzle-orm';
import { vnfPackageContents, vnfPackageFiles, vnfPackages } from '../../common/db/schema';
import type { ApiContext } from '../context';
import { badRequest, conflict, HttpError, notFound } from '../errors';
import { parse } from '../validate';
import { CreateVnfPkgInfoRequest, VnfPkgInfoModifications } from '../schemas/vnfpkgm';
import { packageView } from '../views';
import { filterRows } from './filter';
import { findPackage, listPackages } from '../../common/db/repos/packages';
import { callerOf } from '../auth/middleware';
import { scopeOf } from '../auth/policy';
import { authorize } from './authorize';

const MAX_PACKAGE_BYTES = 2 * 1024 * 1024 * 1024;

export function vnfpkgmRouter(ctx: ApiContext): Router {
  const { db } = ctx;
  const r = Router();
  /** The caller's project's package (admins: any), else 404. */
  const load = (res: Response, id: string) => {
    const p = findPackage(db, scopeOf(callerOf(res)), id);
    if (!p) throw notFound(`VNF package ${id} not found`);
    return p;
  };
  const id = (req: Request) => String(req.params.id);
  const read = authorize('vnf_packages', 'read');
  const write = authorize('vnf_packages', 'write');
  const requireOnboarded = (p: { id: string; onboardingState: string }) => {
    if (p.onboardingState !== 'ONBOARDED') throw conflict(`VNF package ${p.id} is ${p.onboardingState}, not ONBOARDED`);
  };

  r.get('/api_versions', (_req, res) => { res.json({ uriPrefix: '/vnfpkgm/v1', apiVersions: [{ version: '2.6.1', isDeprecated: false }] }); });

  r.post('/vnf_packages', express.json(), write, (req, res) => {
    const body = parse(CreateVnfPkgInfoRequest, req.body ?? {});
    const pkgId = crypto.randomUUID();
    db.insert(vnfPackages).values({
      id: pkgId, projectId: callerOf(res).projectId, onboardingState: 'CREATED', operationalState: 'DISABLED', usageState: 'NOT_IN_USE',
      userDefinedData: body.userDefinedData ?? {}, createdAt: new Date().toISOString(),
    }).run();
    res.status(201).location(`${ctx.cfg.apiBaseUrl}/vnfpkgm/v1/vnf_packages/${pkgId}`).json(packageView(load(res, pkgId)));
  });

  r.get('/vnf_packages', read, (req, res) => {
    const rows = listPackages(db, scopeOf(callerOf(res), req.query.all_projects === 'true')).map(packageView);
    res.json(filterRows(rows, req.query));
  });

  r.get('/vnf_packages/:id', read, (req, res) => { res.json(packageView(load(res, id(req)))); });

  r.patch('/vnf_packages/:id', express.json({ type: ['application/json', 'application/merge-patch+json'] }), write, (req, res) => {
    const mods = parse(VnfPkgInfoModifications, req.body);
    const p = load(res, id(req));
    if (mods.operationalState) {
      requireOnboarded(p);
      if (mods.operationalState === p.operationalState) throw conflict(`VNF package ${p.id} is already ${p.operationalState}`);
    }
    let userDefinedData = p.userDefinedData;
    if (mods.userDefinedData) {
      userDefinedData = { ...p.userDefinedData };
      for (const [k, v] of Object.entries(mods.userDefinedData)) {
        if (v === null) delete userDefinedData[k]; else userDefinedData[k] = v; // JSON merge patch
      }
    }
    db.update(vnfPackages).set({ operationalState: mods.operationalState ?? p.operationalState, userDefinedData }).where(eq(vnfPackages.id, p.id)).run();
    res.json(mods);
  });

  r.delete('/vnf_packages/:id', write, (req, res) => {
    const p = load(res, id(req));
    if (p.operationalState !== 'DISABLED' || p.usageState !== 'NOT_IN_USE') {
      throw conflict(`VNF package ${p.id} must be DISABLED and NOT_IN_USE to be deleted (it is ${p.operationalState}, ${p.usageState})`);
    }
    if (['UPLOADING', 'PROCESSING'].includes(p.onboardingState)) throw conflict(`VNF package ${p.id} is ${p.onboardingState}`);
    db.delete(vnfPackages).where(eq(vnfPackages.id, p.id)).run();
    res.status(204).end();
  });

  r.put('/vnf_packages/:id/package_content', write, express.raw({ type: () => true, limit: MAX_PACKAGE_BYTES }), async (req, res) => {
    const p = load(res, id(req));
    const zip = req.body as Buffer;
    if (!Buffer.isBuffer(zip) || zip.length === 0) throw badRequest('package_content: the request body must be the zip file');
    // CREATED -> UPLOADING atomically, so two uploads cannot both proceed.
    const claimed = db.update(vnfPackages).set({ onboardingState: 'UPLOADING', onboardingFailureDetails: null })
      .where(and(eq(vnfPackages.id, p.id), eq(vnfPackages.onboardingState, 'CREATED'))).run();
    if (claimed.changes === 0) throw conflict(`VNF package ${p.id} is ${load(res, p.id).onboardingState}; content can only be uploaded in CREATED`);
    db.transaction((tx) => {
      tx.insert(vnfPackageContents).values({ packageId: p.id, zip }).onConflictDoUpdate({ target: vnfPackageContents.packageId, set: { zip } }).run();
      tx.update(vnfPackages).set({ onboardingState: 'PROCESSING' }).where(eq(vnfPackages.id, p.id)).run();
    });
    try {
      await ctx.temporal.workflow.start('onboard', {
        workflowId: `onboard-${p.id}-${Date.now()}`, taskQueue: ctx.cfg.taskQueue, args: [{ packageId: p.id }],
      });
    } catch (e) {
      db.update(vnfPackages).set({ onboardingState: 'CREATED' }).where(eq(vnfPackages.id, p.id)).run();
      throw new HttpError(503, `the workflow engine is unavailable (${(e as Error).message}); upload again later`);
    }
    res.status(202).end();
  });

  r.get('/vnf_packages/:id/package_content', read, (req, res) => {
    const p = load(res, id(req));
    requireOnboarded(p);
    const c = db.select().from(vnfPackageContents).where(eq(vnfPackageContents.packageId, p.id)).get();
    if (!c) throw notFound(`VNF package ${p.id} has no content`);
    res.type('application/zip').send(c.zip);
  });

  r.get('/vnf_packages/:id/vnfd', read, (req, res) => {
    const p = load(res, id(req));
    requireOnboarded(p);
    const paths = [...(p.vnfdFiles ?? []), 'TOSCA-Metadata/TOSCA.meta'];
    const files = db.select().from(vnfPackageFiles).where(and(eq(vnfPackageFiles.packageId, p.id), inArray(vnfPackageFiles.path, paths))).all();
    const accept = req.get('accept') ?? '*/*';
    const wantsZip = /application\/zip|\*\/\*/.test(accept);
    const yamls = files.filter((f) => f.path !== 'TOSCA-Metadata/TOSCA.meta');
    if (/text\/plain/.test(accept) && (yamls.length === 1 || !wantsZip)) {
      if (yamls.length !== 1) throw new HttpError(406, 'the VNFD has several files; ask for application/zip');
      res.type('text/plain').send(yamls[0].content);
      return;
    }
    const z = new AdmZip();
    for (const f of files) z.addFile(f.path, f.content);
    res.type('application/zip').send(z.toBuffer());
  });

  r.get('/vnf_packages/:id/artifacts/*artifactPath', read, (req, res) => {
    const p = load(res, id(req));
    requireOnboarded(p);
    const parts = (req.params as unknown as { artifactPath: string[] }).artifactPath;
    const path = parts.join('/');
    const f = db.select().from(vnfPackageFiles).where(and(eq(vnfPackageFiles.packageId, p.id), eq(vnfPackageFiles.path, path))).get();
    if (!f) throw notFound(`artifact ${path} not found in VNF package ${p.id}`);
    res.type('application/octet-stream').send(f.content);
  });

  return r;
}
