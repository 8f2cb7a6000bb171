/**
 * Durable state in <dataDir>/vimsim/state.db (SQLite):
 *  - one row per stack tree (a top-level stack and its nested stacks, as JSON);
 *  - one row per other section of the state (network, tokens, faults);
 *  - an append-only event log, capped per stack as Heat's max_events_per_stack does.
 * A save writes only what changed: new trees, trees that changed status (every
 * status change leaves an event, as in Heat) or that the caller names, and the
 * sections whose JSON differs. Rewriting everything on every change made the
 * simulator quadratic: 1,000 nested stacks or 1,000 instances (docs/benchmarks.md).
 *
 * Each save is one SQLite transaction, so a crash never leaves a torn state.
 * Requests run in a transaction: a rejected request (400) leaves no
 * half-planned stacks or leaked IP addresses behind — the state is rebuilt
 * from what was last saved.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { emptyState, type EventRecord, type SimState, type StackRecord } from './model';

/** Heat's max_events_per_stack; older events are purged in batches of PURGE_BATCH beyond it. */
export const MAX_EVENTS_PER_STACK = 1000;
const PURGE_BATCH = 200;
const SECTIONS = ['network', 'tokens', 'faults'] as const;

export interface LoggedEvent { stackId: string; event: EventRecord }

export class StateStore {
  private state: SimState;
  /** The committed JSON of each section and of each tree (by root id): what a failed transaction goes back to. */
  private readonly saved = { sections: new Map<string, string>(), trees: new Map<string, string>() };
  private readonly saveListeners: (() => void)[] = [];
  private readonly eventCounts: Map<string, number>;
  private readonly sql: ReturnType<typeof statements>;

  private constructor(private readonly db: Database.Database) {
    this.sql = statements(db);
    for (const row of this.sql.sections.all()) this.saved.sections.set(row.name, row.json);
    for (const row of this.sql.trees.all()) this.saved.trees.set(row.root_id, row.json);
    this.eventCounts = new Map(this.sql.countEvents.all().map((r) => [r.stack_id, r.n]));
    this.state = this.lastSaved();
  }

  /** Opens <dir>/state.db, creating it (empty, or from a state.json of an earlier version) when there is none. */
  static open(dir: string): StateStore {
    fs.mkdirSync(dir, { recursive: true });
    const db = new Database(path.join(dir, 'state.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL'); // WAL + NORMAL: a process crash loses nothing; only power loss may lose the last commits
    db.exec(`CREATE TABLE IF NOT EXISTS sections (name TEXT PRIMARY KEY, json TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS trees (root_id TEXT PRIMARY KEY, json TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, stack_id TEXT NOT NULL, json TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS events_by_stack ON events (stack_id, seq);`);
    const store = new StateStore(db);
    const legacy = path.join(dir, 'state.json');
    if (store.saved.sections.size === 0 && fs.existsSync(legacy)) {
      store.state = { ...emptyState(), ...(JSON.parse(fs.readFileSync(legacy, 'utf8')) as Partial<SimState>), version: 1 };
      store.save(Object.keys(store.state.stacks));
    }
    return store;
  }

  /** The live state. Always read through this getter: a rollback swaps the object. */
  get data(): SimState {
    return this.state;
  }

  /** A private copy of the state as last saved (for planning that must not touch the live one). */
  scratchCopy(): SimState {
    return this.lastSaved();
  }

  /**
   * Commits what changed and moves the events recorded on stacks since the last
   * save into the log. `touched`: ids of stacks changed without a status change
   * (their whole tree is written).
   */
  save(touched: string[] = []): void {
    this.pruneExpiredTokens();
    const fresh = new Map<string, EventRecord[]>();
    const dirty = new Set(touched.map((id) => this.state.stacks[id]?.rootId).filter((id): id is string => id !== undefined));
    const trees = new Map<string, StackRecord[]>();
    for (const stack of Object.values(this.state.stacks)) {
      if (stack.events.length > 0) {
        fresh.set(stack.id, stack.events);
        stack.events = [];
        dirty.add(stack.rootId);
      }
      if (!this.saved.trees.has(stack.rootId)) dirty.add(stack.rootId); // a new tree
      const tree = trees.get(stack.rootId);
      if (tree) tree.push(stack);
      else trees.set(stack.rootId, [stack]);
    }
    const changed = (map: Map<string, string>, key: string, json: string) => (map.get(key) === json ? [] : [{ key, json }]);
    const treeWrites = [...dirty].flatMap((root) => changed(this.saved.trees, root, JSON.stringify(trees.get(root) ?? [])));
    const sectionWrites = SECTIONS.flatMap((name) => changed(this.saved.sections, name, JSON.stringify(this.state[name])));
    try {
      this.db.transaction(() => {
        for (const { key, json } of treeWrites) this.sql.putTree.run(key, json);
        for (const { key, json } of sectionWrites) this.sql.putSection.run(key, json);
        for (const [stackId, events] of fresh) {
          for (const event of events) this.sql.addEvent.run(stackId, JSON.stringify(event));
          this.purgeEvents(stackId, events.length);
        }
      })();
    } catch (err) {
      // Nothing was committed: the events go back on their stacks for the next save to log.
      for (const [stackId, events] of fresh) this.state.stacks[stackId].events = events;
      throw err;
    }
    for (const { key, json } of treeWrites) this.saved.trees.set(key, json);
    for (const { key, json } of sectionWrites) this.saved.sections.set(key, json);
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
      this.state = this.lastSaved();
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

  private lastSaved(): SimState {
    const state = emptyState();
    for (const name of SECTIONS) {
      const json = this.saved.sections.get(name);
      if (json) Object.assign(state, { [name]: JSON.parse(json) });
    }
    for (const json of this.saved.trees.values()) {
      for (const stack of JSON.parse(json) as StackRecord[]) state.stacks[stack.id] = stack;
    }
    return state;
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
    // Upserts keep the rowid, so trees load in the order they were created.
    putTree: db.prepare<[string, string]>('INSERT INTO trees (root_id, json) VALUES (?, ?) ON CONFLICT (root_id) DO UPDATE SET json = excluded.json'),
    putSection: db.prepare<[string, string]>('INSERT INTO sections (name, json) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET json = excluded.json'),
    trees: db.prepare<[], { root_id: string; json: string }>('SELECT root_id, json FROM trees ORDER BY rowid'),
    sections: db.prepare<[], { name: string; json: string }>('SELECT name, json FROM sections'),
    addEvent: db.prepare<[string, string]>('INSERT INTO events (stack_id, json) VALUES (?, ?)'),
    purge: db.prepare<[string, number]>('DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE stack_id = ? ORDER BY seq LIMIT ?)'),
    countEvents: db.prepare<[], { stack_id: string; n: number }>('SELECT stack_id, COUNT(*) AS n FROM events GROUP BY stack_id'),
    eventsOf: db.prepare<[string], { stack_id: string; json: string }>(
      'SELECT stack_id, json FROM events WHERE stack_id IN (SELECT value FROM json_each(?)) ORDER BY seq',
    ),
  };
}
