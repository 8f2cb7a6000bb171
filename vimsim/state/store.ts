/**
 * Durable state: one JSON document under <dataDir>/vimsim/state.json.
 * Every change is written with temp file + rename so a crash never leaves a
 * torn file; requests run in a transaction so a rejected request (400) leaves
 * no half-planned stacks or leaked IP addresses behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { emptyState, type SimState } from './model';

export class StateStore {
  private state: SimState;
  private readonly file: string;
  private readonly saveListeners: (() => void)[] = [];

  private constructor(dir: string, state: SimState) {
    this.file = path.join(dir, 'state.json');
    this.state = state;
  }

  /** Loads <dir>/state.json, or starts empty when there is none yet. */
  static open(dir: string): StateStore {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'state.json');
    let state = emptyState();
    if (fs.existsSync(file)) {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<SimState>;
      state = { ...emptyState(), ...parsed, version: 1 };
    }
    return new StateStore(dir, state);
  }

  /** The live state. Always read through this getter: a rollback swaps the object. */
  get data(): SimState {
    return this.state;
  }

  save(): void {
    this.pruneExpiredTokens();
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.state));
    fs.renameSync(tmp, this.file);
    for (const listener of this.saveListeners) listener();
  }

  /** Called after every save (the SSH side follows server creation and deletion this way). */
  onSave(listener: () => void): void {
    this.saveListeners.push(listener);
  }

  /** Runs fn; on throw restores the state as it was before and rethrows. Saves on success. */
  transaction<T>(fn: () => T): T {
    const backup = structuredClone(this.state);
    try {
      const result = fn();
      this.save();
      return result;
    } catch (err) {
      this.state = backup;
      throw err;
    }
  }

  private pruneExpiredTokens(): void {
    const now = Date.now();
    for (const [id, token] of Object.entries(this.state.tokens)) {
      // Keep expired tokens for a while so the client gets a 401, not a "never heard of it".
      if (token.expiresAt < now - 24 * 3600 * 1000) delete this.state.tokens[id];
    }
  }
}
