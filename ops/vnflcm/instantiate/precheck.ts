/**
 * InstantiateVnf before anything is written: the request fits the VNFD (flavour,
 * level, CPs, and a dry-run build of the Heat template), the flavour's built-in
 * Mgmt Drivers accept their additionalParams, and the VIM is one the project may
 * use (an inline VIM is written with the op occ).
 */
import type { Store } from '../../../store';
import { baseHotFiles, hasPackageFile, packageFile } from '../../../store/repos/package-files';
import { packageById } from '../../../store/repos/packages';
import { badRequest, conflict } from '../../../common/http-error';
import { parse } from '../../../common/validate';
import { baseHotPortNames, buildStack, layoutOf, TemplatePolicyRefused, vduCountsForLevel } from '../../../infra/hot';
import { resolveHookSpec } from '../../../mgmt/specs';
import type { Vnfd, VnfdFlavour } from '../../../model/vnfd';
import type { PrecheckInput, StartPlan } from '../../operation';
import { templatePolicyError } from '../instance-checks';
import type { InstantiateVnfRequest } from './request';
import { resolveVim } from './vim-selection';

export async function precheckInstantiate({ db, box, cfg, instance, request, actingVim }: PrecheckInput<InstantiateVnfRequest>): Promise<StartPlan> {
  const pkg = await packageById(db, instance.vnfPkgId);
  const vnfd = pkg?.vnfd ?? undefined;
  if (!vnfd) throw conflict(`VNF package ${instance.vnfPkgId} of instance ${instance.id} is gone`);
  await checkAgainstVnfd(db, instance.vnfPkgId, vnfd, request, cfg.heatResourceTypes);
  await checkDriverParams(db, instance.vnfPkgId, vnfd.flavours[request.flavourId], request.additionalParams ?? {});
  const vim = await resolveVim({ db, box }, { projectId: instance.projectId, all: false }, request.vimConnectionInfo, actingVim);
  return {
    precondition: (i) => { if (i.instantiationState !== 'NOT_INSTANTIATED') throw conflict(`VNF instance ${i.id} is already INSTANTIATED`); },
    alsoWrite: () => ({ vimId: vim.vimId, vimConnectionInfo: vim.shown }),
    write: vim.write,
  };
}

/** 400 when the request does not fit the VNFD, 422 when the package's templates use a resource type not allowed. */
async function checkAgainstVnfd(db: Store, packageId: string, vnfd: Vnfd, body: InstantiateVnfRequest, allowedTypes: readonly string[]): Promise<void> {
  const flavour = vnfd.flavours[body.flavourId];
  if (!flavour) throw badRequest(`flavourId: "${body.flavourId}" is not a flavour of VNFD ${vnfd.vnfdId} (${Object.keys(vnfd.flavours).join(', ')})`);
  if (body.instantiationLevelId && !flavour.instantiationLevels.levels[body.instantiationLevelId]) {
    throw badRequest(`instantiationLevelId: "${body.instantiationLevelId}" is not a level of flavour ${flavour.flavourId} (${Object.keys(flavour.instantiationLevels.levels).join(', ') || 'none'})`);
  }
  (body.extVirtualLinks ?? []).forEach((l, i) => l.extCps.forEach((cp, j) => {
    const cpd = flavour.cps[cp.cpdId];
    if (!cpd) throw badRequest(`extVirtualLinks[${i}].extCps[${j}].cpdId: "${cp.cpdId}" is not a CP of flavour ${flavour.flavourId}`);
  }));
  const files = await baseHotFiles(db, packageId);
  try {
    buildStack(vnfd, flavour, files, body, layoutOf(vduCountsForLevel(flavour, body.instantiationLevelId)), allowedTypes);
  } catch (e) {
    if (e instanceof TemplatePolicyRefused) throw templatePolicyError(e);
    throw badRequest(`the request does not fit the VNFD: ${(e as Error).message}`);
  }
}

/** Built-in Mgmt Drivers bound to the flavour's hooks check their additionalParams (400 before any stack exists). */
async function checkDriverParams(db: Store, packageId: string, flavour: VnfdFlavour, additionalParams: Record<string, unknown>): Promise<void> {
  const readFile = (p: string) => packageFile(db, packageId, p);
  const seen = new Set<string>();
  for (const binding of Object.values(flavour.hooks)) {
    const runner = await resolveHookSpec(binding!, readFile);
    if (runner.kind !== 'builtin' || !runner.driver.instantiateParams || seen.has(runner.driver.name)) continue;
    seen.add(runner.driver.name);
    const params = parse(runner.driver.instantiateParams, additionalParams, 'additionalParams', ['additionalParams']);
    for (const f of runner.driver.packageFiles?.(params) ?? []) {
      if (!(await hasPackageFile(db, packageId, f.path))) throw badRequest(`additionalParams.${f.field}: "${f.path}" is not a file of the VNF package`);
    }
    const problems = runner.driver.checkFlavour?.(params, { flavour, baseHotPorts: baseHotPortNames(await baseHotFiles(db, packageId), flavour.flavourId) }) ?? [];
    if (problems.length) {
      const invalidParams = problems.map((p) => ({ field: `additionalParams.${p.field}`, reason: p.reason }));
      throw badRequest(`invalid additionalParams: ${invalidParams.map((p) => `${p.field}: ${p.reason}`).join('; ')}`, { invalidParams });
    }
  }
}
