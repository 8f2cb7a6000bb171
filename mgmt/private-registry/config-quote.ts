/**
 * Caller values written into configuration files on a VNFC. The API accepts
 * only plain values (params.ts); these encoders are the second line: they
 * escape what the format needs and refuse what no quoting makes safe (a
 * newline starts a new directive in both formats), so a value stored before
 * the API checked it still cannot add a directive.
 */

/** Characters that end or escape a quoted value in either format, or start a new line. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f"\\]/;

function refuseUnsafe(what: string, value: string): void {
  if (UNSAFE.test(value)) throw new Error(`${what}: the value contains a quote, backslash or control character; refused`);
}

/** An apt.conf string ("..."), which has no escapes: quotes, backslashes and control characters are refused. */
export function aptConfString(value: string): string {
  refuseUnsafe('apt.conf value', value);
  return `"${value}"`;
}

/**
 * A systemd `Environment="KEY=value"` line. Quotes, backslashes and control characters are refused;
 * `%` (percent-encoded credentials in a proxy URL) is doubled, else systemd reads a specifier.
 */
export function systemdEnvironment(key: string, value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new Error(`systemd Environment: bad variable name ${JSON.stringify(key)}`);
  refuseUnsafe(`systemd Environment ${key}`, value);
  return `Environment="${key}=${value.replace(/%/g, '%%')}"`;
}
