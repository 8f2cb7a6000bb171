/**
 * Key rotation, the database half: every sealed column not under the current
 * SECRET_KEY (it opens only with one of SECRET_KEY_PREVIOUS) is sealed again
 * under the current key, row by row (a row's write is its own small
 * conditional update; opening and sealing happen outside it). Run by the API
 * at start while SECRET_KEY_PREVIOUS is set; idempotent, so several APIs
 * starting at once only repeat each other's work.
 */
import { eq } from 'drizzle-orm';
import type { SecretBox } from '../common/secrets';
import type { Store } from './store';
import type { Q } from './sql-store';

/** Every column that holds SecretBox output: how to list it and how to replace one value. */
interface SealedColumn {
  list(q: Q): Promise<{ sealed: string | null }[]>;
  /** Replaces `from` by `to` where it still is `from`; returns how many rows changed. */
  replace(q: Q, from: string, to: string): Promise<number>;
}

const SEALED: SealedColumn[] = [
  {
    list: ({ db, t }) => db.select({ sealed: t.vims.passwordSealed }).from(t.vims),
    replace: async ({ db, t }, from, to) => (await db.update(t.vims).set({ passwordSealed: to }).where(eq(t.vims.passwordSealed, from)).returning({ id: t.vims.id })).length,
  },
  {
    list: ({ db, t }) => db.select({ sealed: t.vnfInstances.instantiateParamsSealed }).from(t.vnfInstances),
    replace: async ({ db, t }, from, to) => (await db.update(t.vnfInstances).set({ instantiateParamsSealed: to })
      .where(eq(t.vnfInstances.instantiateParamsSealed, from)).returning({ id: t.vnfInstances.id })).length,
  },
  {
    list: ({ db, t }) => db.select({ sealed: t.vnfLcmOpOccs.operationParamsSealed }).from(t.vnfLcmOpOccs),
    replace: async ({ db, t }, from, to) => (await db.update(t.vnfLcmOpOccs).set({ operationParamsSealed: to })
      .where(eq(t.vnfLcmOpOccs.operationParamsSealed, from)).returning({ id: t.vnfLcmOpOccs.id })).length,
  },
  // the cluster engine: node logins and registry credentials, and each PKI generation's private keys
  {
    list: ({ db, t }) => db.select({ sealed: t.clusters.secretsSealed }).from(t.clusters),
    replace: async ({ db, t }, from, to) => (await db.update(t.clusters).set({ secretsSealed: to })
      .where(eq(t.clusters.secretsSealed, from)).returning({ id: t.clusters.id })).length,
  },
  {
    list: ({ db, t }) => db.select({ sealed: t.clusterPki.keysSealed }).from(t.clusterPki),
    replace: async ({ db, t }, from, to) => (await db.update(t.clusterPki).set({ keysSealed: to })
      .where(eq(t.clusterPki.keysSealed, from)).returning({ id: t.clusterPki.clusterId })).length,
  },
  // Magnum's templates: proxies that may carry credentials
  {
    list: ({ db, t }) => db.select({ sealed: t.magnumTemplates.proxiesSealed }).from(t.magnumTemplates),
    replace: async ({ db, t }, from, to) => (await db.update(t.magnumTemplates).set({ proxiesSealed: to })
      .where(eq(t.magnumTemplates.proxiesSealed, from)).returning({ id: t.magnumTemplates.id })).length,
  },
  // LCM subscriptions: the callback's authentication (Basic password, OAuth 2.0 client secret)
  {
    list: ({ db, t }) => db.select({ sealed: t.lccnSubscriptions.authenticationSealed }).from(t.lccnSubscriptions),
    replace: async ({ db, t }, from, to) => (await db.update(t.lccnSubscriptions).set({ authenticationSealed: to })
      .where(eq(t.lccnSubscriptions.authenticationSealed, from)).returning({ id: t.lccnSubscriptions.id })).length,
  },
];

/** Re-seals what is not under the current key; returns how many values moved. */
export async function resealUnderCurrentKey(store: Store, box: SecretBox): Promise<number> {
  if (!box.rotating) return 0;
  let moved = 0;
  for (const c of SEALED) {
    const rows = await store.read((q) => c.list(q));
    for (const r of rows) {
      if (r.sealed === null || box.isCurrent(r.sealed)) continue;
      const from = r.sealed;
      const again = box.seal(box.open(from)); // throws when no key opens it: a row nobody can read is an operator's problem to see
      moved += await store.read((q) => c.replace(q, from, again));
    }
  }
  return moved;
}
