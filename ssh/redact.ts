/** Masking of secrets (login passwords, key material) in every string that
 *  leaves the SSH layer: command output, error messages and log lines. */
export const SECRET_MASK = '****';

/** `text` with every occurrence of each non-empty secret replaced by ****.
 *  Longer secrets are replaced first so a secret containing another one is
 *  masked whole. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  const list = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length > 0))]
    .sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of list) {
    if (out.includes(s)) out = out.split(s).join(SECRET_MASK);
  }
  return out;
}
