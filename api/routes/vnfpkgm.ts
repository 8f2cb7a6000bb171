/** SOL005 VNF package management: /vnfpkgm/v1. Onboarding runs as a workflow. */
import crypto from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import AdmZip from 'adm-zip';
import { packageKeys, TooLarge } from '../../store/content';
import { artifactType, receiveBody, sendContent } from '../content-response';
import type { ApiContext } from '../context';
import { badRequest, conflict, HttpError, notFound } from '../errors';
import { parse } from '../../common/validate';
import { CreateVnfPkgInfoRequest, VnfPkgInfoModifications } from '../schemas/vnfpkgm';
import { packageView } from '../views';
import { checkIfMatch, etagOf } from '../etag';
import { pageRequest, sendPage } from './filter';
import { attributeSelector, type SelectorRules } from './selectors';

/** SOL005 §9.4.2.3.2: a package list leaves these out unless asked (all_fields, fields, exclude_fields). */
const PACKAGE_SELECTORS: SelectorRules = {
  optionalComplex: ['checksum', 'softwareImages', 'additionalArtifacts', 'userDefinedData', 'onboardingFailureDetails'],
  defaultExcluded: ['softwareImages', 'additionalArtifacts', 'userDefinedData', 'checksum'],
};
import { claimUpload, createPackage, deletePackage, findPackage, modifyPackage, PACKAGE_LIST, pageOfPackages, NoPackage, unclaimUpload } from '../../store/repos/packages';
import { packageFileStream, packageFiles } from '../../store/repos/package-files';
import { callerOf } from '../auth/middleware';
import { scopeOf } from '../auth/policy';
import { authorize } from './authorize';

export function vnfpkgmRouter(ctx: ApiContext): Router {
  const { db } = ctx;
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
    const made = await createPackage(db, { id: pkgId, projectId: callerOf(res).projectId, userDefinedData: body.userDefinedData ?? {} }, ctx.cfg.quotas.packages);
    res.status(201).location(`${ctx.cfg.apiBaseUrl}/vnfpkgm/v1/vnf_packages/${pkgId}`).json(packageView(made, ctx.cfg));
  });

  r.get('/vnf_packages', read, async (req, res) => {
    const shape = attributeSelector(req.query, PACKAGE_SELECTORS);
    const asked = pageRequest(req.query, PACKAGE_LIST, ctx.cfg.limits.listPageSize, { selectors: PACKAGE_SELECTORS });
    const page = await pageOfPackages(db, scopeOf(callerOf(res), req.query.all_projects === 'true'), asked);
    sendPage(req, res, ctx.cfg.apiBaseUrl, page.rows.map((p) => shape(packageView(p, ctx.cfg, asked.omit))), page.next);
  });

  r.get('/vnf_packages/:id', read, async (req, res) => {
    const view = packageView(await load(res, id(req)), ctx.cfg);
    res.set('ETag', etagOf(view)).json(view);
  });

  r.patch('/vnf_packages/:id', write, async (req, res) => {
    const mods = parse(VnfPkgInfoModifications, req.body);
    // read-merge-write in one transaction: a concurrent PATCH (another API process) cannot lose keys
    await modifyPackage(db, scopeOf(callerOf(res)), id(req), (p) => {
      checkIfMatch(req, packageView(p, ctx.cfg));
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
    // After the row: a package is never without the content it lists. Should this fail, the content stays, unreachable, and is logged.
    try { await db.content.deletePrefix(packageKeys.all(p.id)); } catch (e) { ctx.log.warn({ packageId: p.id, err: (e as Error).message }, 'could not remove the package content'); }
    res.status(204).end();
  });

  /**
   * The body streams into the content store (at most PACKAGE_MAX_BYTES); only
   * a complete upload moves the package CREATED -> PROCESSING, just before
   * the zip becomes visible under its key. Any failure before leaves it
   * CREATED, with no zip, so the caller can PUT again.
   */
  r.put('/vnf_packages/:id/package_content', write, async (req, res) => {
    const p = await load(res, id(req));
    const notCreated = (state: string) => conflict(`VNF package ${p.id} is ${state}; content can only be uploaded in CREATED`);
    if (p.onboardingState !== 'CREATED') throw notCreated(p.onboardingState);
    if (Number(req.get('content-length') ?? 0) > maxPackageBytes) throw tooLarge();
    let claimed = false;
    try {
      await receiveBody(req, (body) => db.content.put(packageKeys.zip(p.id), body, {
        maxBytes: maxPackageBytes,
        beforeCommit: async ({ size }) => {
          if (size === 0) throw badRequest('package_content: the request body must be the zip file');
          if (!(await claimUpload(db, p.id, { bytes: size, limit: ctx.cfg.quotas.packageBytes }))) throw notCreated((await load(res, p.id)).onboardingState);
          claimed = true;
        },
      }));
    } catch (e) {
      if (claimed) await unclaimUpload(db, p.id); // claimed, but the zip could not be put in place: CREATED again, the caller can PUT again
      throw e instanceof TooLarge ? tooLarge() : e;
    }
    try {
      await ctx.temporal.workflow.start('onboard', {
        workflowId: `onboard-${p.id}-${Date.now()}`, taskQueue: ctx.cfg.taskQueue, args: [{ packageId: p.id }],
      });
    } catch (e) {
      await unclaimUpload(db, p.id);
      await db.content.delete(packageKeys.zip(p.id));
      throw new HttpError(503, `the workflow engine is unavailable (${(e as Error).message}); upload again later`);
    }
    res.status(202).end();
  });

  r.get('/vnf_packages/:id/package_content', read, async (req, res) => {
    const p = await load(res, id(req));
    requireOnboarded(p);
    await sendContent(req, res, 'application/zip', `VNF package ${p.id} has no content`, (range) => db.content.get(packageKeys.zip(p.id), range));
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
    // Express 5 gives a wildcard's segments as an array (its types say string)
    const parts: unknown = (req.params as Record<string, unknown>).artifactPath;
    const path = Array.isArray(parts) ? parts.join('/') : String(parts);
    await sendContent(req, res, artifactType(path), `artifact ${path} not found in VNF package ${p.id}`, (range) => packageFileStream(db, p.id, path, range));
  });

  return r;
}
