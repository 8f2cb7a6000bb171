/** Errors of cluster/pki. None of them carries key material in its message. */

/**
 * A certificate signing request the cluster CA will not sign: unreadable,
 * a bad signature, a weak key, or a critical extension that Magnum's rules
 * do not allow. `status` 400 is what the API answers (api/errors.ts maps a
 * numeric 4xx status through).
 */
export class CsrRejected extends Error {
  readonly code = 'ECSRREJECTED';
  readonly status = 400;
  constructor(message: string) {
    super(message);
    this.name = 'CsrRejected';
  }
}

/** A PEM the PKI cannot use (not a certificate, not an RSA PKCS#8 key, a key that does not match its certificate). */
export class PkiInputError extends Error {
  readonly code = 'EPKIINPUT';
  constructor(message: string) {
    super(message);
    this.name = 'PkiInputError';
  }
}
