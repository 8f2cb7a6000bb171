/**
 * Durable state in <dataDir>/vimsim/state.db (SQLite, WAL, synchronous=FULL):
 * one table per record kind, each row the record's JSON. Every record is also
 * held in memory (reads never touch the disk).
 *
 * Changes happen in transactions: puts and removes are staged (reads inside
 * the transaction see them), then written in one SQLite transaction and only
 * then applied to memory — a request that throws halfway leaves nothing
 * behind, and a kill -9 loses nothing that was answered.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { KINDS, type Kind, type Records } from './records';

export interface Change<K extends Kind = Kind> {
  kind: K;
  id: string;
  before: Records[K] | undefined;
  after: Records[K] | undefined;
}

const SCHEMA_VERSION = '2';
/** Tables of the simulator before it served Nova/Neutron/Glance/Cinder (a Heat of its own): dropped. */
const OLD_TABLES = ['sections', 'trees', 'events'];

type Staged = Map<Kind, Map<string, unknown>>;
const REMOVED = Symbol('removed');

export class Store {
  private readonly tables = new Map<Kind, Map<string, unknown>>();
  private staged: Staged | null = null;
  private readonly listeners: ((changes: Change[]) => void)[] = [];
  private readonly put_: Record<Kind, Database.Statement<[string, string]>>;
  private readonly del_: Record<Kind, Database.Statement<[string]>>;

  private constructor(
    private readonly db: Database.Database,
    private readonly onListenerError: (err: unknown) => void,
  ) {
    this.put_ = {} as typeof this.put_;
    this.del_ = {} as typeof this.del_;
    for (const kind of KINDS) {
      db.exec(`CREATE TABLE IF NOT EXISTS ${kind} (id TEXT PRIMARY KEY, json TEXT NOT NULL)`);
      this.put_[kind] = db.prepare(`INSERT INTO ${kind} (id, json) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET json = excluded.json`);
      this.del_[kind] = db.prepare(`DELETE FROM ${kind} WHERE id = ?`);
      const rows = db.prepare<[], { id: string; json: string }>(`SELECT id, json FROM ${kind} ORDER BY rowid`).all();
      this.tables.set(kind, new Map(rows.map((r) => [r.id, JSON.parse(r.json) as unknown])));
    }
  }

  static open(dir: string, onListenerError: (err: unknown) => void = () => {}): Store {
    fs.mkdirSync(dir, { recursive: true });
    const db = new Database(path.join(dir, 'state.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const version = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema'").get()?.value;
    if (version !== SCHEMA_VERSION) {
      for (const table of OLD_TABLES) db.exec(`DROP TABLE IF EXISTS ${table}`);
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(SCHEMA_VERSION);
    }
    return new Store(db, onListenerError);
  }

  get<K extends Kind>(kind: K, id: string): Records[K] | undefined {
    const staged = this.staged?.get(kind);
    if (staged?.has(id)) {
      const value = staged.get(id);
      return value === REMOVED ? undefined : (value as Records[K]);
    }
    return this.table(kind).get(id) as Records[K] | undefined;
  }

  /** Every record of a kind, oldest first. */
  list<K extends Kind>(kind: K): Records[K][] {
    const table = this.table(kind);
    const staged = this.staged?.get(kind);
    if (!staged || staged.size === 0) return [...table.values()] as Records[K][];
    const out: Records[K][] = [];
    for (const [id, value] of table) {
      const v = staged.has(id) ? staged.get(id) : value;
      if (v !== REMOVED) out.push(v as Records[K]);
    }
    for (const [id, value] of staged) if (!table.has(id) && value !== REMOVED) out.push(value as Records[K]);
    return out;
  }

  put<K extends Kind>(kind: K, record: Records[K]): Records[K] {
    this.tx(() => this.stage(kind, record.id, record));
    return record;
  }

  remove(kind: Kind, id: string): void {
    this.tx(() => this.stage(kind, id, REMOVED));
  }

  /** Runs fn with every put/remove staged; commits them together (nested calls join the outer one). */
  tx<T>(fn: () => T): T {
    if (this.staged) return fn();
    this.staged = new Map();
    let staged: Staged;
    let result: T;
    try {
      result = fn();
    } finally {
      staged = this.staged;
      this.staged = null;
    }
    this.commit(staged);
    return result;
  }

  /** Called after each commit with what changed (the SSH side follows servers and ports this way). */
  onCommit(listener: (changes: Change[]) => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    this.db.close();
  }

  private table(kind: Kind): Map<string, unknown> {
    return this.tables.get(kind)!;
  }

  private stage(kind: Kind, id: string, value: unknown): void {
    let map = this.staged!.get(kind);
    if (!map) this.staged!.set(kind, (map = new Map()));
    map.set(id, value);
  }

  private commit(staged: Staged): void {
    if (staged.size === 0) return;
    this.db.transaction(() => {
      for (const [kind, map] of staged) {
        for (const [id, value] of map) {
          if (value === REMOVED) this.del_[kind].run(id);
          else this.put_[kind].run(id, JSON.stringify(value));
        }
      }
    })();
    const changes: Change[] = [];
    for (const [kind, map] of staged) {
      const table = this.table(kind);
      for (const [id, value] of map) {
        const before = table.get(id);
        if (value === REMOVED) table.delete(id);
        else table.set(id, value);
        if (before !== undefined || value !== REMOVED) {
          changes.push({ kind, id, before, after: value === REMOVED ? undefined : value } as Change);
        }
      }
    }
    for (const listener of this.listeners) {
      try {
        listener(changes);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
