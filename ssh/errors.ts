/** Errors thrown by the SSH layer. Every message, stdout and stderr they carry
 *  has already passed through redactSecrets(). */

export class SshError extends Error {
  /** `user@host:port` the error is about. */
  readonly target: string;
  constructor(message: string, target: string) {
    super(message);
    this.name = new.target.name;
    this.target = target;
  }
}

/** Could not connect before the deadline (refused, timed out, banner/handshake
 *  errors, connection closed early): the retriable failures, given up. */
export class SshConnectError extends SshError {
  constructor(message: string, target: string, readonly attempts: number, readonly lastError: string) {
    super(message, target);
  }
}

/** The server rejected the credentials. Never retried. */
export class SshAuthError extends SshError {}

/** The host key differs from the one pinned for this VNFC. Never retried,
 *  never accepted: forget(hostKeyId) first if the VNFC was replaced. */
export class SshHostKeyMismatchError extends SshError {
  constructor(message: string, target: string, readonly hostKeyId: string, readonly expected: string, readonly actual: string) {
    super(message, target);
  }
}

/** A command (or an upload) ran longer than its timeout; it was killed. */
export class SshTimeoutError extends SshError {
  constructor(message: string, target: string, readonly timeoutMs: number, readonly stdout = '', readonly stderr = '') {
    super(message, target);
  }
}

/** The connection went away (or was closed) while a command or transfer ran. */
export class SshConnectionLostError extends SshError {}

/** A command exited with a non-zero code (or was killed by a signal). */
export class SshCommandError extends SshError {
  constructor(
    message: string, target: string, readonly command: string,
    readonly code: number | null, readonly signal: string | undefined, readonly stdout: string, readonly stderr: string,
  ) {
    super(message, target);
  }
}

/** An upload failed or its size/sha256 did not match after one retry. */
export class SshUploadError extends SshError {}

/** No out-of-band host key to check a VNFC's first key against (its console printed none) while the policy requires one. */
export class SshHostKeyUnverifiedError extends SshError {}
