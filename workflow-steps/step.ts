/** One step of an operation, as the saga engine (engine/saga.ts) runs, compensates, aborts and shows it. */
export interface Step {
  name: string;
  run(): Promise<void>;
  /** Undo what run() may have done, even partly; must be idempotent. */
  compensate?(): Promise<void>;
  /** Stop the VIM operation run() is waiting on (FORCEFUL cancel). */
  abort?(): Promise<void>;
  /** Once started, the op can no longer be rolled back (e.g. stack deletion). */
  irreversible?: boolean;
  /** Any cancel interrupts it, GRACEFUL too (long external waits such as coordinations). */
  interruptible?: boolean;
}
