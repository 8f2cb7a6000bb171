/**
 * DATA_DIR holds the secret key, the database and the embedded cloud's state:
 * created 0700 and kept so (chmod at every start), so that package scripts,
 * which run as uids of their own (SCRIPTS_UIDS), cannot read anything in it.
 */
import fs from 'node:fs';

export function privateDataDir(dataDir: string): string {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.chmodSync(dataDir, 0o700);
  } catch (e) {
    // Not ours to change (someone else's directory): left as it is, as it was before.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') throw e;
  }
  return dataDir;
}
