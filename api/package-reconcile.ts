/**
 * Packages at API start: what a crash or an upgrade can leave behind.
 * - Package bytes of older versions go to the content store (PACKAGE_STORE):
 *   zip BLOBs of the pre-0004 table (then dropped), zips of the directory
 *   store's old layout (PACKAGE_STORE_DIR/<id>.zip, then removed), and file
 *   BLOBs of vnf_package_files (then NULL). Each is streamed, never whole
 *   in memory; several APIs starting at once may move the same one twice,
 *   which writes the same bytes.
 * - Leftovers of puts that died with their process (older than a day).
 * - UPLOADING (only older versions set it: uploads now stream into the
 *   content store while the package stays CREATED) goes back to CREATED.
 * - PROCESSING with no onboarding workflow running (the API died between
 *   claiming the upload and starting the workflow) gets its workflow.
 */
import fs from 'node:fs';
import path from 'node:path';
import { drainLegacyPackageContents, drainLegacyPackageFiles } from '../store/legacy-package-contents';
import { packageById, processingPackageIds, resetUploading } from '../store/repos/packages';
import type { Store } from '../store';
import { packageKeys } from '../store/content';
import type { ApiContext } from './context';

/** A put that has not committed after this long died with its process. */
const ABANDONED_AFTER_MS = 24 * 3600 * 1000;
const ANY_SIZE = Number.MAX_SAFE_INTEGER;

export async function reconcilePackages(ctx: ApiContext): Promise<void> {
  const { db, log } = ctx;
  const moved = await moveOlderContent(db, ctx.cfg.packageStoreDir);
  if (moved.zips + moved.files + moved.oldLayout) log.info({ ...moved, store: db.content.kind }, 'moved package content of an older version into the content store');
  const swept = await db.content.sweepAbandoned(ABANDONED_AFTER_MS);
  if (swept) log.warn({ count: swept }, 'removed what uploads that died with their process left in the content store');
  const reset = await resetUploading(db);
  if (reset) log.warn({ count: reset }, 'packages left UPLOADING are CREATED again');
  await restartOnboarding(ctx);
}

/** Package bytes that older versions kept elsewhere, into the content store; how many of each. */
export async function moveOlderContent(db: Store, packageStoreDir: string): Promise<{ zips: number; files: number; oldLayout: number }> {
  const put = (key: string, body: AsyncIterable<Buffer>) => db.content.put(key, body, { maxBytes: ANY_SIZE });
  const zips = await drainLegacyPackageContents(db, (id, body) => put(packageKeys.zip(id), body));
  const files = await drainLegacyPackageFiles(db, (id, p, body) => put(packageKeys.file(id, p), body));
  // PACKAGE_STORE_DIR/<id>.zip: the package store before the content store; a zip of a deleted package just goes.
  const names = fs.existsSync(packageStoreDir) ? fs.readdirSync(packageStoreDir).filter((n) => /^[0-9a-f-]{36}\.zip$/i.test(n)) : [];
  for (const name of names) {
    const id = name.slice(0, 36);
    const file = path.join(packageStoreDir, name);
    if (await packageById(db, id)) await put(packageKeys.zip(id), fs.createReadStream(file));
    fs.rmSync(file, { force: true });
  }
  return { zips, files, oldLayout: names.length };
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
