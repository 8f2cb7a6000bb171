/**
 * The extension point for VNFD Vnflcm hooks. A hook's artifact resolves to a
 * built-in Mgmt Driver or an executable script from the package (mgmt/);
 * anything else fails the step cleanly, naming the hook and the artifact.
 * The activity heartbeats while the hook runs, and its steps are idempotent,
 * so a retry after a worker crash is safe.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { and, eq } from 'drizzle-orm';
import { vnfLcmOpOccs, vnfPackageFiles } from '../common/db/schema';
import { isSecretKey, redact } from '../common/secrets';
import { heatForVim } from '../infra/vim';
import type { InstantiatedVnfInfo } from '../infra/vnf-info';
import { vnfcAddress } from '../infra/vnfc-address';
import { resolveHook } from '../mgmt/registry';
import { runScript } from '../mgmt/script-runner';
import { DriverContext, DriverStepError, VnfcTarget } from '../mgmt/types';
import { connectSsh, SshError } from '../ssh';
import type { LcmHook } from '../vnfpkg/vnfd-model';
import type { ActivityDeps } from './deps';
import { dbHostKeyStore } from './host-keys';
import { flavourOf, instantiateInputOf, loadOpOcc } from './records';

/** Every string under a secret-looking key, so outputs can be masked. */
function secretValues(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => secretValues(x, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (isSecretKey(k) && typeof x === 'string') out.push(x); else secretValues(x, out);
    }
  }
  return out;
}

export function hookActivities(deps: ActivityDeps) {
  const { db, box, cfg, log } = deps;
  return {
    async runLcmHook({ opOccId, hook, vnfcIds }: { opOccId: string; hook: LcmHook; vnfcIds?: string[] }): Promise<void> {
      const op = loadOpOcc(db, opOccId);
      const { inst, flavour } = flavourOf(db, box, op);
      const binding = flavour?.hooks[hook];
      if (!binding) return;
      const readFile = (p: string) => db.select().from(vnfPackageFiles).where(and(eq(vnfPackageFiles.packageId, inst.vnfPkgId), eq(vnfPackageFiles.path, p))).get()?.content;
      const runner = resolveHook(binding, readFile);
      if (runner.kind === 'none') throw ApplicationFailure.nonRetryable(`no runner for hook ${hook}: ${runner.reason}`, 'NoHookRunner');

      const additionalParams = instantiateInputOf(box, op, inst).additionalParams ?? {};
      const secrets = secretValues(additionalParams);
      const info = inst.instantiatedVnfInfo as unknown as InstantiatedVnfInfo | null;
      const all = info?.vnfcResourceInfo ?? [];
      const vnfcs: VnfcTarget[] = all.filter((v) => !vnfcIds || vnfcIds.includes(v.id))
        .map((v) => ({ id: v.id, vduId: v.vduId, serverId: v.computeResource.resourceId }));
      const progress = (step: string) => {
        Context.current().heartbeat({ step });
        db.update(vnfLcmOpOccs).set({ currentStep: redact(`${hook} hook: ${step}`) }).where(eq(vnfLcmOpOccs.id, opOccId)).run();
      };
      const beat = setInterval(() => Context.current().heartbeat(), 10_000);
      try {
        if (runner.kind === 'script') {
          const r = await runScript(runner.file, readFile(runner.file)!, {
            hook, vnfInstanceId: inst.id, vnfLcmOpOccId: opOccId, operation: op.operation, vnfcs, additionalParams,
            instantiatedVnfInfo: info, operationParams: redact(op.operationParams),
          }, { timeoutMs: cfg.mgmtScriptTimeoutMs, secrets, onTick: () => Context.current().heartbeat() });
          if (r.code !== 0) throw ApplicationFailure.nonRetryable(`hook ${hook}: ${runner.file} exited ${r.code}: ${r.stderr.trim().slice(-2000) || r.stdout.trim().slice(-2000)}`, 'HookFailed');
          return;
        }
        const driverHook = runner.driver.hooks[hook];
        if (!driverHook) return; // the built-in driver has nothing to do at this hook
        const heat = heatForVim(db, box, inst.vimId!);
        const ctx: DriverContext = {
          hook, opOccId, vnfInstanceId: inst.id, vnfcs, additionalParams, progress,
          addressOf: (vnfc, cpName) => {
            const v = all.find((x) => x.id === vnfc.id);
            if (!v || flavour.cps[cpName]?.vduId !== v.vduId) return Promise.resolve(undefined);
            return vnfcAddress(heat, v, cpName);
          },
          ssh: (vnfc, host, creds, extra = []) => connectSsh(
            { host, port: cfg.mgmtSshPort, ...creds, hostKeyId: vnfc.id },
            { hostKeys: dbHostKeyStore(db), deadlineMs: cfg.sshConnectDeadlineMs, secrets: [...secrets, ...extra], log: (m) => log.info({ opOccId, hook }, m) },
          ),
          packageFile: (p) => {
            const f = readFile(p);
            if (!f) throw ApplicationFailure.nonRetryable(`file ${p} is not in the VNF package`, 'HookFailed');
            return f;
          },
        };
        await driverHook(ctx);
      } catch (e) {
        if (e instanceof ApplicationFailure) throw e;
        // Driver steps and SSH failures need the operator (or a retry after a fix): no automatic repeat.
        if (e instanceof DriverStepError || e instanceof SshError) throw ApplicationFailure.nonRetryable(`hook ${hook} (${runner.kind === 'builtin' ? runner.driver.name : runner.file}): ${e.message}`, 'HookFailed');
        throw e;
      } finally {
        clearInterval(beat);
      }
    },
  };
}
