/** SSH host keys pinned per VNFC, kept in the database so every worker agrees. */
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../common/db';
import { sshHostKeys } from '../common/db/schema';
import type { HostKeyStore } from '../ssh';

export function dbHostKeyStore(db: Db): HostKeyStore {
  return {
    get: (id) => db.select().from(sshHostKeys).where(eq(sshHostKeys.vnfcId, id)).get()?.fingerprint,
    set: (id, fingerprint) => {
      db.insert(sshHostKeys).values({ vnfcId: id, fingerprint, learnedAt: new Date().toISOString() })
        .onConflictDoUpdate({ target: sshHostKeys.vnfcId, set: { fingerprint } }).run();
    },
    forget: (id) => { db.delete(sshHostKeys).where(eq(sshHostKeys.vnfcId, id)).run(); },
  };
}

/** A heal replaced these VNFCs' servers: their next SSH connection learns the new keys. */
export function forgetHostKeys(db: Db, vnfcIds: string[]): void {
  if (vnfcIds.length) db.delete(sshHostKeys).where(inArray(sshHostKeys.vnfcId, vnfcIds)).run();
}
