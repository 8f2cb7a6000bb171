/**
 * What a package script prints is masked before it reaches an op occ, a log
 * or a workflow history: every secret value of the request the script was
 * given. The one place that decides which values those are and how they are
 * masked; the scripts worker calls maskScriptOutput() on everything it
 * returns or raises.
 */
import { isSecretKey } from '../common/secrets';
import { MASK, redactSecrets } from '../common/secrets';

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
      const k = beginningAtEnd(out, s);
      if (k >= 4) out = out.slice(0, out.length - k) + MASK;
    }
  }
  return out;
}

/**
 * The length of the longest beginning of `s`, shorter than `s`, that `text` ends with: the automaton of
 * Knuth-Morris-Pratt over the last |s|-1 characters, linear in |s|. A secret is request data and may be
 * large; trying every length with endsWith was quadratic in it (hours of CPU for a 500 KB value).
 */
function beginningAtEnd(text: string, s: string): number {
  const fail = new Int32Array(s.length);
  for (let i = 1, k = 0; i < s.length; i++) {
    while (k > 0 && s.charCodeAt(i) !== s.charCodeAt(k)) k = fail[k - 1];
    if (s.charCodeAt(i) === s.charCodeAt(k)) k++;
    fail[i] = k;
  }
  let k = 0;
  for (let i = Math.max(0, text.length - (s.length - 1)); i < text.length; i++) {
    while (k > 0 && text.charCodeAt(i) !== s.charCodeAt(k)) k = fail[k - 1];
    if (text.charCodeAt(i) === s.charCodeAt(k)) k++;
  }
  return k;
}
