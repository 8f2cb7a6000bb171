/**
 * The extension point for VNFD Vnflcm hooks. A hook's artifact resolves to a
 * built-in Mgmt Driver or an executable script from the package (mgmt/);
 * anything else fails the step cleanly, naming the hook and the artifact.
 * prepareLcmHook says which; a built-in driver runs here (runLcmHook,
 * heartbeating; its steps are idempotent, so a retry after a worker crash is
 * safe), a script is sealed for the scripts worker and never runs here.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { packageFile } from '../store/repos/package-files';
import { updateOpOcc } from '../store/repos/op-occs';
import { redact } from '../common/secrets';
import { heatForVim } from '../infra/vim';
import { vnfcAddress } from '../infra/vnfc-address';
import { resolveHook } from '../mgmt/registry';
import { scriptChannelKeyFor, sealScriptJob } from '../mgmt/script-channel';
import { scriptLimits, scriptReach } from '../mgmt/script-job';
import { scriptSecrets } from '../mgmt/script-mask';
import { DriverContext, DriverStepError, VnfcTarget } from '../mgmt/types';
import { SshError } from '../ssh';
import type { LcmHook } from '../model/vnfd';
import type { ActivityDeps } from './deps';
import { sshToServer } from './server-ssh';
import { opContext } from './op-context';

/** What a hook step runs: nothing (no binding), the built-in driver (runLcmHook), or a sealed script job for the scripts worker. */
export type PreparedHook = { kind: 'none' } | { kind: 'builtin' } | { kind: 'workflow'; workflowType: string; driver: string } | { kind: 'script'; name: string; sealed: string };
interface HookArgs { opOccId: string; hook: LcmHook; vnfcIds?: string[] }

export function hookActivities(deps: ActivityDeps) {
  const { db, box, cfg, log } = deps;
  let channelKey: Buffer | undefined;

  /** The hook's binding, how it resolves, and what a runner is told. */
  const hookContext = async ({ opOccId, hook, vnfcIds }: HookArgs) => {
    const ctx = await opContext(deps, opOccId);
    const { op } = ctx;
    const [inst, flavour] = [await ctx.instance(), await ctx.flavour()];
    const binding = flavour?.hooks[hook];
    if (!binding) return undefined;
    const readFile = (p: string) => packageFile(db, inst.vnfPkgId, p);
    const runner = await resolveHook(binding, readFile);
    if (runner.kind === 'none') throw ApplicationFailure.nonRetryable(`no runner for hook ${hook}: ${runner.reason}`, 'NoHookRunner');
    const additionalParams = (await ctx.instantiateInput()).additionalParams ?? {};
    const info = inst.instantiatedVnfInfo;
    const all = info?.vnfcResourceInfo ?? [];
    const vnfcs: VnfcTarget[] = all.filter((v) => !vnfcIds || vnfcIds.includes(v.id))
      .map((v) => ({ id: v.id, vduId: v.vduId, serverId: v.computeResource.resourceId }));
    return { op, inst, flavour, runner, readFile, additionalParams, info, all, vnfcs };
  };

  return {
    /** Which runner a hook has; for a script, the job sealed for the scripts worker (secrets inside, ciphertext only in history). */
    async prepareLcmHook(args: HookArgs): Promise<PreparedHook> {
      const c = await hookContext(args);
      if (!c) return { kind: 'none' };
      if (c.runner.kind === 'builtin') {
        const workflowType = c.runner.driver.hookWorkflows?.[args.hook];
        return workflowType ? { kind: 'workflow', workflowType, driver: c.runner.driver.name } : { kind: 'builtin' };
      }
      if (c.runner.kind !== 'script') return { kind: 'builtin' };
      const { hook, opOccId } = args;
      const input = {
        hook, vnfInstanceId: c.inst.id, vnfLcmOpOccId: opOccId, operation: c.op.operation, vnfcs: c.vnfcs, additionalParams: c.additionalParams,
        instantiatedVnfInfo: c.info, operationParams: redact(c.op.operationParams),
      };
      channelKey ??= scriptChannelKeyFor(cfg.dataDir);
      const sealed = sealScriptJob(channelKey, {
        name: c.runner.file, script: (await c.readFile(c.runner.file))!, stdin: JSON.stringify(input), secrets: scriptSecrets(input),
        limits: scriptLimits(cfg, cfg.mgmtScriptTimeoutMs), reach: scriptReach(cfg, c.info), project: c.inst.projectId,
      }, `hook ${hook}:`);
      return { kind: 'script', name: c.runner.file, sealed };
    },

    async runLcmHook({ opOccId, hook, vnfcIds }: HookArgs): Promise<void> {
      const c = await hookContext({ opOccId, hook, vnfcIds });
      if (!c) return;
      const { inst, flavour, runner, readFile, additionalParams, all, vnfcs } = c;
      const secrets = scriptSecrets(additionalParams);
      const progress = (step: string) => {
        Context.current().heartbeat({ step });
        // shown only; the heartbeat above is what keeps the activity alive
        updateOpOcc(db, opOccId, { currentStep: redact(`${hook} hook: ${step}`) }).catch((e: Error) => log.warn({ opOccId, hook, err: e.message }, 'could not record the hook step'));
      };
      const beat = setInterval(() => Context.current().heartbeat(), 10_000);
      // A cancel (FORCEFUL, reaching us with a heartbeat's answer) closes the driver's SSH sessions, which ends
      // their remote commands, and ends this activity: the workflow waits for that before it moves on.
      const sessions = new Set<{ close(): Promise<void> }>();
      try {
        if (runner.kind === 'script') {
          // Only a workflow recorded before scripts moved to the scripts worker asks this; its retry takes the new path.
          throw ApplicationFailure.nonRetryable(`hook ${hook}: package scripts run on the scripts worker now; retry the operation`, 'ScriptsMoved');
        }
        const driverHook = runner.driver.hooks[hook];
        if (!driverHook) return; // the built-in driver has nothing to do at this hook
        const heat = await heatForVim(db, box, inst.vimId!);
        const ctx: DriverContext = {
          hook, opOccId, vnfInstanceId: inst.id, vnfcs, additionalParams, progress,
          addressOf: (vnfc, cpName) => {
            const v = all.find((x) => x.id === vnfc.id);
            if (!v || flavour.cps[cpName]?.vduId !== v.vduId) return Promise.resolve(undefined);
            return vnfcAddress(heat, v, cpName);
          },
          ssh: async (vnfc, host, creds, extra = []) => {
            const session = await sshToServer(deps, {
              vimId: inst.vimId!, serverId: vnfc.serverId, hostKeyId: vnfc.id, host, creds, secrets: [...secrets, ...extra],
              log: (m) => log.info({ opOccId, hook }, m),
            });
            sessions.add(session);
            return session;
          },
          packageFile: async (p) => {
            // A driver may take an image from the package (the private registry's): up to what an upload may be, not the small-file cap.
            const f = await packageFile(db, inst.vnfPkgId, p, cfg.limits.packageBytes);
            if (!f) throw ApplicationFailure.nonRetryable(`file ${p} is not in the VNF package`, 'HookFailed');
            return f;
          },
        };
        await Promise.race([driverHook(ctx), Context.current().cancelled]);
      } catch (e) {
        if (e instanceof ApplicationFailure) throw e;
        // Driver steps and SSH failures need the operator (or a retry after a fix): no automatic repeat.
        if (e instanceof DriverStepError || e instanceof SshError) throw ApplicationFailure.nonRetryable(`hook ${hook} (${runner.kind === 'builtin' ? runner.driver.name : runner.file}): ${e.message}`, 'HookFailed');
        throw e;
      } finally {
        clearInterval(beat);
        await Promise.all([...sessions].map((x) => x.close().catch(() => undefined)));
      }
    },
  };
}
