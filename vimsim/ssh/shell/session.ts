/** What a shell runs within: its SSH exec request, and how `exit` unwinds. */

/** One exec request (or interactive shell) of an SSH session. */
export interface ExecSession {
  /** Settles when the client closes the channel or disconnects. */
  closed: Promise<void>;
  isClosed(): boolean;
  /** A pty was requested: sudo may prompt on it. */
  tty: boolean;
  /** sudo already took the password in this exec request (same parent shell: no new prompt). */
  sudoAuthenticated: boolean;
  /** Environment sent with `env` requests. */
  env: Record<string, string>;
}

/** `exit N`, unwinding to the nearest shell. */
export class ExitSignal {
  constructor(readonly code: number) {}
}
