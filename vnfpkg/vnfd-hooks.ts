import { resolveArtifactFile } from './artifacts';
import { nodeWhere, type DfContext } from './df-context';
import { PackageError } from './package-error';
import type { VnfNode } from './vnf-node';
import { LCM_HOOKS, type LcmHookBinding, type VnfdFlavour } from '../model/vnfd';
import { isMap, optMap, optString } from './yaml-values';

/**
 * The flavour's Vnflcm hooks: interfaces.Vnflcm.<hook>.implementation names
 * an artifact of the same VNF node, whose file must be in the package.
 * Operations that are not hooks (instantiate, terminate, …) are ignored.
 */
export function readHooks(ctx: DfContext, vnf: VnfNode | undefined): VnfdFlavour['hooks'] {
  const hooks: VnfdFlavour['hooks'] = {};
  if (!vnf) return hooks;
  const where = nodeWhere(ctx, vnf.id);
  const interfaces = optMap(vnf.node.interfaces, where, 'interfaces');
  const vnflcm = optMap(interfaces?.Vnflcm, where, 'interfaces.Vnflcm');
  if (!vnflcm) return hooks;
  const artifacts = optMap(vnf.node.artifacts, where, 'artifacts') ?? {};

  for (const hook of LCM_HOOKS) {
    const operation = vnflcm[hook];
    if (operation === undefined || operation === null) continue;
    const artifactName = implementationName(operation);
    if (artifactName === undefined) {
      throw new PackageError(`${where}: interfaces.Vnflcm.${hook} has no implementation`);
    }
    const artifact = artifacts[artifactName];
    if (artifact === undefined) {
      throw new PackageError(
        `${where}: interfaces.Vnflcm.${hook} uses artifact "${artifactName}", which the node does not define under artifacts`,
      );
    }
    hooks[hook] = readBinding(ctx, `${where}: artifact ${artifactName}`, artifactName, artifact);
  }
  return hooks;
}

/** "hook: name", "hook: {implementation: name}" or "{implementation: {primary: name}}". */
function implementationName(operation: unknown): string | undefined {
  if (typeof operation === 'string') return operation;
  if (!isMap(operation)) return undefined;
  const impl = operation.implementation;
  if (typeof impl === 'string') return impl;
  return isMap(impl) && typeof impl.primary === 'string' ? impl.primary : undefined;
}

function readBinding(ctx: DfContext, where: string, name: string, artifact: unknown): LcmHookBinding {
  const fileName = optString(isMap(artifact) ? artifact.file : artifact, where, 'file');
  const type = isMap(artifact) ? optString(artifact.type, where, 'type') : undefined;
  const file = fileName === undefined ? undefined : resolveArtifactFile(ctx.files, ctx.file, fileName, where);
  return { artifact: name, file, type };
}
