/**
 * Packages at API start: what a crash or an upgrade can leave behind.
 * - BLOBs of the pre-0004 table are written out to the package store, then
 *   the table is dropped.
 * - UPLOADING (only older versions set it: uploads now go to a temporary
 *   file while the package stays CREATED) goes back to CREATED.
 * - PROCESSING with no onboarding workflow running (the API died between
 *   claiming the upload and starting the workflow) gets its workflow.
 */
import { eq } from 'drizzle-orm';
import { vnfPackages } from '../common/db/schema';
import { PackageStore } from '../vnfpkg/package-store';
import type { ApiContext } from './context';

const LEGACY_TABLE = 'legacy_package_contents';

export async function reconcilePackages(ctx: ApiContext): Promise<void> {
  const store = new PackageStore(ctx.cfg.packageStoreDir);
  const moved = exportLegacyContents(ctx, store);
  if (moved) ctx.log.info({ count: moved, dir: store.dir }, 'moved package zips from the database into the package store');
  const reset = ctx.db.update(vnfPackages).set({ onboardingState: 'CREATED' }).where(eq(vnfPackages.onboardingState, 'UPLOADING')).run().changes;
  if (reset) ctx.log.warn({ count: reset }, 'packages left UPLOADING are CREATED again');
  await restartOnboarding(ctx);
}

/** One row at a time (each may be up to 1 GB); a row is deleted only once its file is in place. */
function exportLegacyContents({ db }: ApiContext, store: PackageStore): number {
  const sqlite = db.$client;
  if (!sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(LEGACY_TABLE)) return 0;
  const ids = sqlite.prepare(`SELECT package_id AS id FROM ${LEGACY_TABLE}`).all() as { id: string }[];
  const readZip = sqlite.prepare(`SELECT zip FROM ${LEGACY_TABLE} WHERE package_id = ?`);
  const remove = sqlite.prepare(`DELETE FROM ${LEGACY_TABLE} WHERE package_id = ?`);
  for (const { id } of ids) {
    const row = readZip.get(id) as { zip: Buffer } | undefined;
    if (row) store.write(id, row.zip);
    remove.run(id);
  }
  sqlite.exec(`DROP TABLE ${LEGACY_TABLE}`);
  return ids.length;
}

async function restartOnboarding(ctx: ApiContext): Promise<void> {
  const processing = ctx.db.select({ id: vnfPackages.id }).from(vnfPackages).where(eq(vnfPackages.onboardingState, 'PROCESSING')).all();
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
  for (const { id } of processing.filter((p) => !running.has(p.id))) {
    await ctx.temporal.workflow.start('onboard', { workflowId: `onboard-${id}-${Date.now()}`, taskQueue: ctx.cfg.taskQueue, args: [{ packageId: id }] });
    ctx.log.warn({ packageId: id }, 'restarted the onboarding of a package left PROCESSING');
  }
}
