/**
 * The SSH host keys a server printed on its console: cloud-init writes them
 * between `-----BEGIN SSH HOST KEY KEYS-----` and `-----END SSH HOST KEY
 * KEYS-----`, one OpenSSH public key line each. The console (read from Nova
 * over an authenticated API) is the out-of-band channel a first host key is
 * checked against.
 */
import { hostKeyFingerprint } from './host-keys';

export const CONSOLE_KEYS_BEGIN = '-----BEGIN SSH HOST KEY KEYS-----';
export const CONSOLE_KEYS_END = '-----END SSH HOST KEY KEYS-----';

export interface ConsoleHostKey { type: string; fingerprint: string }

const KEY_LINE = /(?:^|\s)((?:ssh|ecdsa|sk)-[A-Za-z0-9@.-]+)\s+([A-Za-z0-9+/]+={0,2})(?:\s|$)/;

/**
 * The keys of the last complete block (a reboot prints it again; the newest
 * counts), or undefined when there is none. Lines that are no valid key (the
 * blob's own type must match the line's) are skipped. Markers may carry a
 * prefix (`ec2: `, a timestamp), as some images print them.
 */
export function parseConsoleHostKeys(output: string): ConsoleHostKey[] | undefined {
  const lines = output.split(/\r?\n/);
  let block: string[] | undefined;
  let current: string[] | undefined;
  for (const line of lines) {
    if (line.includes(CONSOLE_KEYS_BEGIN)) current = [];
    else if (line.includes(CONSOLE_KEYS_END)) {
      if (current) block = current;
      current = undefined;
    } else current?.push(line);
  }
  if (!block) return undefined;
  return block.flatMap((line) => {
    const m = KEY_LINE.exec(line);
    if (!m) return [];
    const blob = Buffer.from(m[2], 'base64');
    // the blob starts with its own type (uint32 length + name): a sanity check against a garbled line
    if (blob.length < 4) return [];
    const n = blob.readUInt32BE(0);
    if (n > blob.length - 4 || blob.subarray(4, 4 + n).toString('latin1') !== m[1]) return [];
    return [{ type: m[1], fingerprint: hostKeyFingerprint(blob) }];
  });
}
