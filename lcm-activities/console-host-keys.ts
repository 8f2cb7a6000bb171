/**
 * SSH_HOST_KEY_SOURCE for a VNFC with no pinned host key: which fingerprints
 * its first key must be among, read from the host keys cloud-init printed on
 * the server's console (Nova os-getConsoleOutput, an authenticated channel
 * the VNFC's network cannot forge).
 *   console              - required; waits for the block until the SSH connect
 *                          deadline (sshd may be up before cloud-init prints it)
 *   console-or-first-use - used when printed, else trust on first use (warned)
 *   first-use            - trust on first use (no check)
 */
import type { SshHostKeySource } from '../common/config';
import { OpenStackHttpError } from '../infra/openstack/http';
import type { NovaClient } from '../infra/openstack/nova';
import { CONSOLE_KEYS_BEGIN, parseConsoleHostKeys, SshHostKeyUnverifiedError } from '../ssh';

export interface ExpectedKeysArgs {
  policy: SshHostKeySource;
  vnfcId: string;
  serverId: string;
  nova: () => NovaClient;
  deadlineMs: number;
  warn: (msg: string) => void;
}

const FIRST_WAIT_MS = 1000;
const MAX_WAIT_MS = 10_000;

export async function expectedHostKeys(a: ExpectedKeysArgs): Promise<{ fingerprints: string[]; source: string } | undefined> {
  if (a.policy === 'first-use') return undefined;
  const source = `the host keys server ${a.serverId} printed on its console`;
  const deadline = Date.now() + (a.policy === 'console' ? a.deadlineMs : 0);
  let wait = FIRST_WAIT_MS;
  let problem = '';
  for (;;) {
    try {
      const keys = parseConsoleHostKeys(await a.nova().consoleOutput(a.serverId));
      if (keys?.length) return { fingerprints: keys.map((k) => k.fingerprint), source };
      problem = keys ? 'its host key block lists no valid key' : `no ${CONSOLE_KEYS_BEGIN} block`;
    } catch (e) {
      // 404: the server is gone, waiting will not help; 409 (not booted yet) and transient errors are waited out
      if (e instanceof OpenStackHttpError && e.status === 404) throw unverified(a, `server ${a.serverId} not found reading its console`);
      problem = `console output unreadable: ${(e as Error).message}`;
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    await new Promise((r) => setTimeout(r, Math.min(wait, left)));
    wait = Math.min(wait * 2, MAX_WAIT_MS);
  }
  if (a.policy === 'console-or-first-use') {
    a.warn(`VNFC ${a.vnfcId}: no host keys on the console of server ${a.serverId} (${problem}); trusting its first SSH host key (SSH_HOST_KEY_SOURCE=console-or-first-use)`);
    return undefined;
  }
  throw unverified(a, `its console shows no SSH host keys (${problem}) after ${Math.round(a.deadlineMs / 1000)} s; ` +
    `the image must print its host keys to the console (cloud-init does), or set SSH_HOST_KEY_SOURCE=console-or-first-use or first-use`);
}

function unverified(a: ExpectedKeysArgs, why: string): SshHostKeyUnverifiedError {
  return new SshHostKeyUnverifiedError(`cannot verify the SSH host key of VNFC ${a.vnfcId} (server ${a.serverId}): ${why}; no connection made`, a.serverId);
}
