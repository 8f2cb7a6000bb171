/**
 * One onboarding in a process of its own, for test/component/vnfpkg-memory.test.ts:
 *   node --import tsx test/support/onboard-child.ts <zip file> <directory|database> <data dir> [postgres URL]
 * The zip is streamed into the content store as the API does it, then the
 * worker's onboardPackage activity runs; printed (JSON, last line): the
 * resident memory before it and its peak during it, in bytes.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../common/config';
import { openStore } from '../../store';
import { packageFileIndex } from '../../store/repos/package-files';
import { claimUpload, createPackage } from '../../store/repos/packages';
import { createLogger } from '../../common/log';
import { SecretBox } from '../../common/secrets';
import { packageActivities } from '../../ops/vnfpkgm/onboard/activities';
import { packageKeys, type ContentStoreKind } from '../../store/content';

async function main(): Promise<void> {
  const [zipFile, kind, dataDir, databaseUrl] = process.argv.slice(2);
  const db = await openStore({ dataDir, databaseUrl, packageStore: kind as ContentStoreKind, packageStoreDir: path.join(dataDir, 'packages') });
  const id = crypto.randomUUID();
  await createPackage(db, { id, projectId: 'p', userDefinedData: {} });
  await db.content.put(packageKeys.zip(id), fs.createReadStream(zipFile), { maxBytes: fs.statSync(zipFile).size });
  if (!(await claimUpload(db, id))) throw new Error('not claimed');
  const activities = packageActivities({ db, cfg: loadConfig(), log: createLogger('onboard-child', 'silent'), box: new SecretBox(crypto.randomBytes(32)) });

  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 10);
  const started = Date.now();
  await activities.onboardPackage({ packageId: id });
  clearInterval(sampler);
  const maxRss = process.resourceUsage().maxRSS * 1024; // the process's peak so far, upload included: an upper bound
  const files = await packageFileIndex(db, id);
  await db.close();
  console.log(JSON.stringify({ before, peak: Math.max(peak, process.memoryUsage().rss), maxRss, ms: Date.now() - started, files }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
