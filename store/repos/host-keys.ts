/** SSH host keys pinned per VNFC, kept in the database so every worker agrees. */
import { eq, inArray } from 'drizzle-orm';
import type { Store } from '../store';
import { first } from './rows';

export async function pinnedHostKey(store: Store, vnfcId: string): Promise<string | undefined> {
  const row = await store.read(({ db, t }) => first(db.select({ f: t.sshHostKeys.fingerprint }).from(t.sshHostKeys).where(eq(t.sshHostKeys.vnfcId, vnfcId)).limit(1)));
  return row?.f;
}

export function pinHostKey(store: Store, vnfcId: string, fingerprint: string): Promise<void> {
  return store.read(async ({ db, t }) => {
    await db.insert(t.sshHostKeys).values({ vnfcId, fingerprint, learnedAt: new Date().toISOString() })
      .onConflictDoUpdate({ target: t.sshHostKeys.vnfcId, set: { fingerprint } });
  });
}

/** These VNFCs' servers were replaced: their next SSH connection learns the new keys. */
export function forgetHostKeys(store: Store, vnfcIds: string[]): Promise<void> {
  if (vnfcIds.length === 0) return Promise.resolve();
  return store.read(async ({ db, t }) => { await db.delete(t.sshHostKeys).where(inArray(t.sshHostKeys.vnfcId, vnfcIds)); });
}
