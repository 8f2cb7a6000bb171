/**
 * Key rotation, the database half: every sealed column not under the current
 * SECRET_KEY (it opens only with one of SECRET_KEY_PREVIOUS) is sealed again
 * under the current key, row by row (a row's write is its own small
 * transaction; opening and sealing happen outside it). Run by the API at
 * start while SECRET_KEY_PREVIOUS is set; idempotent, so several APIs
 * starting at once only repeat each other's work.
 */
import { eq } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { SecretBox } from '../secrets';
import type { Db } from './index';
import { vims, vnfInstances, vnfLcmOpOccs } from './schema';

interface SealedColumn { table: SQLiteTable; id: SQLiteColumn; column: SQLiteColumn; key: string }

/** Every column that holds SecretBox output. */
const SEALED: SealedColumn[] = [
  { table: vims, id: vims.id, column: vims.passwordSealed, key: 'passwordSealed' },
  { table: vnfInstances, id: vnfInstances.id, column: vnfInstances.instantiateParamsSealed, key: 'instantiateParamsSealed' },
  { table: vnfLcmOpOccs, id: vnfLcmOpOccs.id, column: vnfLcmOpOccs.operationParamsSealed, key: 'operationParamsSealed' },
];

/** Re-seals what is not under the current key; returns how many values moved. */
export function resealUnderCurrentKey(db: Db, box: SecretBox): number {
  if (!box.rotating) return 0;
  let moved = 0;
  for (const c of SEALED) {
    const rows = db.select({ id: c.id, sealed: c.column }).from(c.table).all() as { id: string; sealed: string | null }[];
    for (const r of rows) {
      if (r.sealed === null || box.isCurrent(r.sealed)) continue;
      const again = box.seal(box.open(r.sealed)); // throws when no key opens it: a row nobody can read is an operator's problem to see
      moved += db.update(c.table).set({ [c.key]: again }).where(eq(c.column, r.sealed)).run().changes;
    }
  }
  return moved;
}
