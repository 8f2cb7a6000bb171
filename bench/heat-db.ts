/**
 * Heat's own time per stack action, read (after the measurements, read-only)
 * from the embedded Heat's SQLite database: its events carry microsecond
 * timestamps, the API rounds them to seconds. A stack's own events are
 * <ACTION>_IN_PROGRESS ... <ACTION>_COMPLETE; the time between them is what
 * Heat spent on that create or update, whoever asked and however often they
 * polled. Heat keeps at most max_events_per_stack (1000) events per stack and
 * purges the oldest, so a stack with many updates keeps only its latest ones.
 */
import path from 'node:path';
import Database from 'better-sqlite3';

export interface HeatAction { action: string; ms: number }

/** SQLAlchemy's '2026-12-01 03:36:10.695180' (UTC) in ms. */
const ts = (s: string) => Date.parse(`${s.replace(' ', 'T')}Z`);

export class HeatDb {
  private readonly db: Database.Database;
  constructor(dataDir: string) {
    this.db = new Database(path.join(dataDir, 'openstack', 'heat', 'heat.db'), { readonly: true, fileMustExist: true });
  }

  /** Every completed action of the stack still in Heat's event table, oldest first. */
  actions(stackId: string): HeatAction[] {
    const rows = this.db.prepare(
      'SELECT created_at AS at, resource_action AS action, resource_status AS status FROM event WHERE stack_id = ? AND physical_resource_id = ? ORDER BY id',
    ).all(stackId, stackId) as { at: string; action: string; status: string }[];
    const out: HeatAction[] = [];
    let start: { action: string; at: number } | undefined;
    for (const r of rows) {
      if (r.status === 'IN_PROGRESS') start = { action: r.action, at: ts(r.at) };
      else if (r.status === 'COMPLETE' && start?.action === r.action) {
        out.push({ action: r.action, ms: ts(r.at) - start.at });
        start = undefined;
      }
    }
    return out;
  }

  /**
   * Where a batch's stacks ran in Heat, in ms after `startedAt`: the first and the last CREATE_IN_PROGRESS (when
   * Heat began them) and the last CREATE_COMPLETE. Against the batch's end it shows how late the stacks reached
   * Heat and how long after Heat's last completion the client saw it.
   */
  createWindow(stackIds: string[], startedAt: number): { firstStartMs: number; lastStartMs: number; lastCompleteMs: number } | undefined {
    const q = this.db.prepare(
      "SELECT MIN(CASE WHEN resource_status = 'IN_PROGRESS' THEN created_at END) AS started, MAX(CASE WHEN resource_status = 'COMPLETE' THEN created_at END) AS completed FROM event WHERE stack_id = ? AND physical_resource_id = ? AND resource_action = 'CREATE'",
    );
    const rows = stackIds.map((id) => q.get(id, id) as { started: string | null; completed: string | null }).filter((r) => r.started && r.completed);
    if (!rows.length) return undefined;
    const starts = rows.map((r) => ts(r.started!) - startedAt);
    return { firstStartMs: Math.min(...starts), lastStartMs: Math.max(...starts), lastCompleteMs: Math.max(...rows.map((r) => ts(r.completed!) - startedAt)) };
  }

  /** The ids of the stacks of these names (top-level, not deleted). */
  stackIds(names: string[]): Map<string, string> {
    const q = this.db.prepare('SELECT id FROM stack WHERE name = ? AND owner_id IS NULL AND deleted_at IS NULL ORDER BY created_at DESC LIMIT 1');
    return new Map(names.map((n) => [n, (q.get(n) as { id: string } | undefined)?.id ?? '']));
  }

  close(): void {
    this.db.close();
  }
}

/** median / min / max of a list of ms, rounded. */
export function spread(ms: number[]): { n: number; medianMs: number; minMs: number; maxMs: number; meanMs: number } | undefined {
  if (!ms.length) return undefined;
  const s = [...ms].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x);
  return { n: s.length, medianMs: r(s[Math.floor((s.length - 1) / 2)]), minMs: r(s[0]), maxMs: r(s[s.length - 1]), meanMs: r(s.reduce((a, b) => a + b, 0) / s.length) };
}
