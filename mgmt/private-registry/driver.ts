/**
 * Built-in Mgmt Driver for the Docker private registry VNF (seed 000):
 * instantiate_end installs the registry on every VNFC that has the SSH CP;
 * heal_end re-installs it on the healed VNFCs only (the hook context lists them).
 */
import type { BuiltinDriver, DriverContext } from '../types';
import { DriverStepError } from '../types';
import { PrivateRegistryAdditionalParams } from '../../model/private-registry-params';
import { privateRegistrySpec } from './spec';
import { installSteps } from './steps';

async function install(ctx: DriverContext): Promise<void> {
  const p = PrivateRegistryAdditionalParams.parse(ctx.additionalParams).private_registry_installation_param;
  const image = p.image_path ? { content: await ctx.packageFile(p.image_path), name: p.image_path.split('/').pop()! } : undefined;
  const secrets = [p.ssh_password, p.proxy?.http_proxy, p.proxy?.https_proxy].filter((s): s is string => !!s);
  for (const vnfc of ctx.vnfcs) {
    const host = await ctx.addressOf(vnfc, p.ssh_cp_name);
    if (!host) continue; // a VNFC of another VDU: nothing to install there
    const ssh = await ctx.ssh(vnfc, host, { username: p.ssh_username, password: p.ssh_password }, secrets);
    try {
      for (const step of installSteps(p, image)) {
        ctx.progress(`${step.name} on ${vnfc.id} (${host})`);
        await withTimeout(step.run(ssh), step.timeoutMs, step.name).catch((e: Error) => {
          throw new DriverStepError(step.name, `${vnfc.id} (${host})`, ssh.redact(e.message));
        });
      }
    } finally {
      await ssh.close();
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => { t = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 1000} s`)), ms); })])
    .finally(() => clearTimeout(t));
}

export const privateRegistryDriver: BuiltinDriver = {
  ...privateRegistrySpec,
  hooks: { instantiate_end: install, heal_end: install },
};
