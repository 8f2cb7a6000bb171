/**
 * Durable state in <dataDir>/vimsim/state.db (SQLite):
 *  - one row holding the state document (stacks, network, tokens, faults) as JSON;
 *  - an append-only event log, capped per stack as Heat's max_events_per_stack does.
 * Events live apart from the document because a stack tree of N nested stacks
 * gains ~4N events per update: kept inside the document they made every save
 * rewrite hundreds of MB at N = 1,000 (docs/benchmarks.md).
 *
 * Every save commits the document and the new events in one SQLite transaction,
 * so a crash never leaves a torn state. Requests run in a transaction: a rejected
 * request (400) leaves no half-planned stacks or leaked IP addresses behind —
 * the state is restored from the document as last saved.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { emptyState, type EventRecord, type SimState } from './model';

/** Heat's max_events_per_stack; older events are purged in batches of PURGE_BATCH beyond it. */
export const MAX_EVENTS_PER_STACK = 1000;
const PURGE_BATCH = 200;

export interface LoggedEvent { stackId: string; event: EventRecord }

export class StateStore {
  private state: SimState;
  /** The document as last committed: what a failed transaction goes back to. */
  private saved: string;
  private readonly saveListeners: (() => void)[] = [];
  private readonly eventCounts: Map<string, number>;
  private readonly sql: ReturnType<typeof statements>;

  private constructor(private readonly db: Database.Database, state: SimState) {
    this.state = state;
    this.sql = statements(db);
    this.eventCounts = new Map(this.sql.countEvents.all().map((r) => [r.stack_id, r.n]));
    this.saved = '';
    this.save();
  }

  /** Opens <dir>/state.db, creating it (empty, or from a state.json of an earlier version) when there is none. */
  static open(dir: string): StateStore {
    fs.mkdirSync(dir, { recursive: true });
    const db = new Database(path.join(dir, 'state.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL'); // WAL + NORMAL: a process crash loses nothing; only power loss may lose the last commits
    db.exec(`CREATE TABLE IF NOT EXISTS document (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, stack_id TEXT NOT NULL, json TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS events_by_stack ON events (stack_id, seq);`);
    const row = db.prepare('SELECT json FROM document WHERE id = 1').get() as { json: string } | undefined;
    const legacy = path.join(dir, 'state.json');
    const text = row?.json ?? (fs.existsSync(legacy) ? fs.readFileSync(legacy, 'utf8') : undefined);
    const parsed = text ? (JSON.parse(text) as Partial<SimState>) : {};
    return new StateStore(db, { ...emptyState(), ...parsed, version: 1 });
  }

  /** The live state. Always read through this getter: a rollback swaps the object. */
  get data(): SimState {
    return this.state;
  }

  /** A private copy of the state as last saved (for planning that must not touch the live one). */
  scratchCopy(): SimState {
    return JSON.parse(this.saved) as SimState;
  }

  /** Commits the document and moves the events recorded on stacks since the last save into the log. */
  save(): void {
    this.pruneExpiredTokens();
    const fresh = new Map<string, EventRecord[]>();
    for (const stack of Object.values(this.state.stacks)) {
      if (stack.events.length === 0) continue;
      fresh.set(stack.id, stack.events);
      stack.events = [];
    }
    const json = JSON.stringify(this.state);
    this.db.transaction(() => {
      if (json !== this.saved) this.sql.putDocument.run(json);
      for (const [stackId, events] of fresh) {
        for (const event of events) this.sql.addEvent.run(stackId, JSON.stringify(event));
        this.purgeEvents(stackId, events.length);
      }
    })();
    this.saved = json;
    for (const listener of this.saveListeners) listener();
  }

  /** Called after every save (the SSH side follows server creation and deletion this way). */
  onSave(listener: () => void): void {
    this.saveListeners.push(listener);
  }

  /**
   * Runs fn; on throw restores the state as last saved and rethrows. Saves on success.
   * Every change is saved when made, so "as last saved" is "as before fn".
   */
  transaction<T>(fn: () => T): T {
    try {
      const result = fn();
      this.save();
      return result;
    } catch (err) {
      this.state = this.scratchCopy();
      throw err;
    }
  }

  /** The logged events of these stacks, oldest first. */
  eventsOf(stackIds: string[]): LoggedEvent[] {
    return this.sql.eventsOf.all(JSON.stringify(stackIds)).map((r) => ({ stackId: r.stack_id, event: JSON.parse(r.json) as EventRecord }));
  }

  close(): void {
    this.save();
    this.db.close();
  }

  private purgeEvents(stackId: string, added: number): void {
    const count = (this.eventCounts.get(stackId) ?? 0) + added;
    const excess = count > MAX_EVENTS_PER_STACK + PURGE_BATCH ? count - MAX_EVENTS_PER_STACK : 0;
    if (excess > 0) this.sql.purge.run(stackId, excess);
    this.eventCounts.set(stackId, count - excess);
  }

  private pruneExpiredTokens(): void {
    const now = Date.now();
    for (const [id, token] of Object.entries(this.state.tokens)) {
      // Keep expired tokens for a while so the client gets a 401, not a "never heard of it".
      if (token.expiresAt < now - 24 * 3600 * 1000) delete this.state.tokens[id];
    }
  }
}

function statements(db: Database.Database) {
  return {
    putDocument: db.prepare<[string]>('INSERT INTO document (id, json) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET json = excluded.json'),
    addEvent: db.prepare<[string, string]>('INSERT INTO events (stack_id, json) VALUES (?, ?)'),
    purge: db.prepare<[string, number]>('DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE stack_id = ? ORDER BY seq LIMIT ?)'),
    countEvents: db.prepare<[], { stack_id: string; n: number }>('SELECT stack_id, COUNT(*) AS n FROM events GROUP BY stack_id'),
    eventsOf: db.prepare<[string], { stack_id: string; json: string }>(
      'SELECT stack_id, json FROM events WHERE stack_id IN (SELECT value FROM json_each(?)) ORDER BY seq',
    ),
  };
}
