/**
 * Packages at API start: what a crash or an upgrade can leave behind.
 * - BLOBs of the pre-0004 table are written out to the package store, then
 *   the table is dropped.
 * - UPLOADING (only older versions set it: uploads now go to a temporary
 *   file while the package stays CREATED) goes back to CREATED.
 * - PROCESSING with no onboarding workflow running (the API died between
 *   claiming the upload and starting the workflow) gets its workflow.
 */
import { drainLegacyPackageContents } from '../common/db/legacy-package-contents';
import { processingPackageIds, resetUploading } from '../common/db/repos/packages';
import { PackageStore } from '../vnfpkg/package-store';
import type { ApiContext } from './context';

export async function reconcilePackages(ctx: ApiContext): Promise<void> {
  const store = new PackageStore(ctx.cfg.packageStoreDir);
  const moved = await drainLegacyPackageContents(ctx.db, (id, zip) => store.write(id, zip));
  if (moved) ctx.log.info({ count: moved, dir: store.dir }, 'moved package zips from the database into the package store');
  const reset = await resetUploading(ctx.db);
  if (reset) ctx.log.warn({ count: reset }, 'packages left UPLOADING are CREATED again');
  await restartOnboarding(ctx);
}

async function restartOnboarding(ctx: ApiContext): Promise<void> {
  const processing = await processingPackageIds(ctx.db);
  if (processing.length === 0) return;
  const running = new Set<string>();
  try {
    for await (const wf of ctx.temporal.workflow.list({ query: "WorkflowType = 'onboard' AND ExecutionStatus = 'Running'" })) {
      running.add(wf.workflowId.slice('onboard-'.length, 'onboard-'.length + 36));
    }
  } catch (e) {
    ctx.log.warn({ err: (e as Error).message }, 'cannot list onboarding workflows; packages left PROCESSING stay so');
    return;
  }
  for (const id of processing.filter((p) => !running.has(p))) {
    await ctx.temporal.workflow.start('onboard', { workflowId: `onboard-${id}-${Date.now()}`, taskQueue: ctx.cfg.taskQueue, args: [{ packageId: id }] });
    ctx.log.warn({ packageId: id }, 'restarted the onboarding of a package left PROCESSING');
  }
}
