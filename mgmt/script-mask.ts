/**
 * What a package script prints is masked before it reaches an op occ, a log
 * or a workflow history: every secret value of the request the script was
 * given. The one place that decides which values those are and how they are
 * masked; the scripts worker calls maskScriptOutput() on everything it
 * returns or raises.
 */
import { isSecretKey } from '../common/secrets';
import { redactSecrets, SECRET_MASK } from '../ssh/redact';

/** Every string under a secret-looking key of a script's input document (its stdin). */
export function scriptSecrets(input: unknown, out: string[] = []): string[] {
  if (Array.isArray(input)) input.forEach((x) => scriptSecrets(x, out));
  else if (input && typeof input === 'object') {
    for (const [k, x] of Object.entries(input)) {
      if (isSecretKey(k) && (typeof x === 'string' || typeof x === 'number') && String(x) !== '') out.push(String(x));
      else scriptSecrets(x, out);
    }
  }
  return out;
}

/**
 * `text` with each secret masked, also as it appears inside a JSON string
 * (escaped). `truncated`: the text was cut off after its last character, so a
 * secret may have been cut in two; a trailing beginning of a secret (4+
 * characters) is masked too.
 */
export function maskScriptOutput(text: string, secrets: readonly string[], o: { truncated?: boolean } = {}): string {
  const forms = secrets.filter((s) => s.length > 0).flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]);
  let out = redactSecrets(text, forms);
  if (o.truncated) {
    for (const s of forms) {
      for (let k = s.length - 1; k >= 4; k--) {
        if (out.endsWith(s.slice(0, k))) { out = out.slice(0, out.length - k) + SECRET_MASK; break; }
      }
    }
  }
  return out;
}
