/** SOL005 VNF package management: /vnfpkgm/v1. Onboarding runs as a workflow. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Router, type Request, type Response } from 'express';
import AdmZip from 'adm-zip';
import { PackageStore, TooLarge } from '../../vnfpkg/package-store';
import type { ApiContext } from '../context';
import { badRequest, conflict, HttpError, notFound } from '../errors';
import { parse } from '../../common/validate';
import { CreateVnfPkgInfoRequest, VnfPkgInfoModifications } from '../schemas/vnfpkgm';
import { packageView } from '../views';
import { filterRows } from './filter';
import { claimUpload, createPackage, deletePackage, findPackage, listPackages, modifyPackage, NoPackage, unclaimUpload } from '../../common/db/repos/packages';
import { packageFile, packageFiles } from '../../common/db/repos/package-files';
import { callerOf } from '../auth/middleware';
import { scopeOf } from '../auth/policy';
import { authorize } from './authorize';

export function vnfpkgmRouter(ctx: ApiContext): Router {
  const { db } = ctx;
  const store = new PackageStore(ctx.cfg.packageStoreDir);
  const maxPackageBytes = ctx.cfg.limits.packageBytes;
  const tooLarge = () => new HttpError(413, `the package is larger than ${maxPackageBytes} bytes (PACKAGE_MAX_BYTES)`);
  const r = Router();
  /** The caller's project's package (admins: any), else 404. */
  const load = async (res: Response, id: string) => {
    const p = await findPackage(db, scopeOf(callerOf(res)), id);
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

  // JSON bodies are parsed (and bounded) in app.ts.
  r.post('/vnf_packages', write, async (req, res) => {
    const body = parse(CreateVnfPkgInfoRequest, req.body ?? {});
    const pkgId = crypto.randomUUID();
    await createPackage(db, { id: pkgId, projectId: callerOf(res).projectId, userDefinedData: body.userDefinedData ?? {} });
    res.status(201).location(`${ctx.cfg.apiBaseUrl}/vnfpkgm/v1/vnf_packages/${pkgId}`).json(packageView(await load(res, pkgId)));
  });

  r.get('/vnf_packages', read, async (req, res) => {
    const rows = (await listPackages(db, scopeOf(callerOf(res), req.query.all_projects === 'true'))).map(packageView);
    res.json(filterRows(rows, req.query));
  });

  r.get('/vnf_packages/:id', read, async (req, res) => { res.json(packageView(await load(res, id(req)))); });

  r.patch('/vnf_packages/:id', write, async (req, res) => {
    const mods = parse(VnfPkgInfoModifications, req.body);
    // read-merge-write in one transaction: a concurrent PATCH (another API process) cannot lose keys
    await modifyPackage(db, scopeOf(callerOf(res)), id(req), (p) => {
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
      return { operationalState: mods.operationalState ?? p.operationalState, userDefinedData };
    }).catch((e: unknown) => { throw e instanceof NoPackage ? notFound(e.message) : e; });
    res.json(mods);
  });

  r.delete('/vnf_packages/:id', write, async (req, res) => {
    const p = await load(res, id(req));
    if (p.operationalState !== 'DISABLED' || p.usageState !== 'NOT_IN_USE') {
      throw conflict(`VNF package ${p.id} must be DISABLED and NOT_IN_USE to be deleted (it is ${p.operationalState}, ${p.usageState})`);
    }
    if (['UPLOADING', 'PROCESSING'].includes(p.onboardingState)) throw conflict(`VNF package ${p.id} is ${p.onboardingState}`);
    await deletePackage(db, p.id);
    try { store.remove(p.id); } catch (e) { ctx.log.warn({ packageId: p.id, err: (e as Error).message }, 'could not remove the package file'); }
    res.status(204).end();
  });

  /**
   * The body goes to a temporary file first (at most PACKAGE_MAX_BYTES); only
   * a complete upload moves the package CREATED -> PROCESSING, in the same
   * transaction that puts the file in place. Any failure before leaves it
   * CREATED, with no file, so the caller can PUT again.
   */
  r.put('/vnf_packages/:id/package_content', write, async (req, res) => {
    const p = await load(res, id(req));
    const notCreated = (state: string) => conflict(`VNF package ${p.id} is ${state}; content can only be uploaded in CREATED`);
    if (p.onboardingState !== 'CREATED') throw notCreated(p.onboardingState);
    if (Number(req.get('content-length') ?? 0) > maxPackageBytes) throw tooLarge();
    let upload: { file: string; bytes: number };
    try {
      upload = await store.receive(p.id, req, maxPackageBytes);
    } catch (e) {
      if (e instanceof TooLarge) throw tooLarge();
      throw e;
    }
    try {
      if (upload.bytes === 0) throw badRequest('package_content: the request body must be the zip file');
      if (!(await claimUpload(db, p.id))) throw notCreated((await load(res, p.id)).onboardingState);
      try {
        store.commit(upload.file, p.id);
      } catch (e) {
        await unclaimUpload(db, p.id); // no file in place: CREATED again, the caller can PUT again
        throw e;
      }
    } finally {
      fs.rmSync(upload.file, { force: true });
    }
    try {
      await ctx.temporal.workflow.start('onboard', {
        workflowId: `onboard-${p.id}-${Date.now()}`, taskQueue: ctx.cfg.taskQueue, args: [{ packageId: p.id }],
      });
    } catch (e) {
      await unclaimUpload(db, p.id);
      store.remove(p.id);
      throw new HttpError(503, `the workflow engine is unavailable (${(e as Error).message}); upload again later`);
    }
    res.status(202).end();
  });

  r.get('/vnf_packages/:id/package_content', read, async (req, res) => {
    const p = await load(res, id(req));
    requireOnboarded(p);
    let file: fs.ReadStream;
    try {
      file = await openStream(store.pathOf(p.id));
    } catch {
      throw notFound(`VNF package ${p.id} has no content`);
    }
    res.type('application/zip');
    await pipeline(file, res).catch(() => res.destroy()); // the caller went away mid-download
  });

  r.get('/vnf_packages/:id/vnfd', read, async (req, res) => {
    const p = await load(res, id(req));
    requireOnboarded(p);
    const files = await packageFiles(db, p.id, [...(p.vnfdFiles ?? []), 'TOSCA-Metadata/TOSCA.meta']);
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

  r.get('/vnf_packages/:id/artifacts/*artifactPath', read, async (req, res) => {
    const p = await load(res, id(req));
    requireOnboarded(p);
    const parts = (req.params as unknown as { artifactPath: string[] }).artifactPath;
    const path = parts.join('/');
    const content = await packageFile(db, p.id, path);
    if (!content) throw notFound(`artifact ${path} not found in VNF package ${p.id}`);
    res.type('application/octet-stream').send(content);
  });

  return r;
}

/** A read stream once the file is open (so a missing file is an error here, not mid-response). */
function openStream(file: string): Promise<fs.ReadStream> {
  return new Promise((resolve, reject) => {
    const stream = fs.createReadStream(file);
    stream.once('open', () => resolve(stream)).once('error', reject);
  });
}
