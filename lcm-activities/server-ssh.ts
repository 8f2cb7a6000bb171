/**
 * SSH to a server of a VNF or a cluster, the one way every driver connects:
 * its host key pinned under `hostKeyId` (a VNFC id, a cluster node's server
 * id); with no pin yet (first connection, or the server was replaced) the
 * first key must be one the server printed on its console
 * (SSH_HOST_KEY_SOURCE), refused before any credential is sent otherwise.
 * The address passes the outbound policy first.
 */
import { ApplicationFailure } from '@temporalio/common';
import net from 'node:net';
import { addressProblem, type OutboundSettings } from '../common/outbound';
import type { ActivityDeps } from './deps';
import { novaForVim } from '../infra/vim';
import { connectSsh, type SshSession } from '../ssh';
import { expectedHostKeys } from './console-host-keys';
import { dbHostKeyStore } from './host-keys';

export interface ServerSshTarget {
  vimId: string;
  serverId: string;
  hostKeyId: string;
  host: string;
  creds: { username: string; password?: string; privateKey?: string };
  /** Values to mask in everything the session hands out (beside the login's own). */
  secrets: string[];
  log: (m: string) => void;
}

/**
 * Why SSH to `host` is refused by the outbound policy (OUTBOUND_DENY /
 * OUTBOUND_ALLOW, the built-in denies), as every URL is: a VNFC's address is
 * the tenant's to choose (its port's fixed IP). Security review 3, M-1.
 */
export function sshTargetProblem(host: string, settings?: OutboundSettings): string | undefined {
  return net.isIP(host) ? addressProblem(host, undefined, settings) : undefined;
}

export async function sshToServer({ db, box, cfg }: Pick<ActivityDeps, 'db' | 'box' | 'cfg'>, t: ServerSshTarget): Promise<SshSession> {
  const refused = sshTargetProblem(t.host);
  if (refused) throw ApplicationFailure.nonRetryable(`SSH to ${t.host} is refused: ${refused}`, 'OutboundRefused');
  const hostKeys = await dbHostKeyStore(db, t.hostKeyId, t.log);
  const expected = hostKeys.get(t.hostKeyId) !== undefined ? undefined : await expectedHostKeys({
    policy: cfg.sshHostKeySource, vnfcId: t.hostKeyId, serverId: t.serverId, nova: await lazyNova(db, box, t.vimId),
    deadlineMs: cfg.sshConnectDeadlineMs, warn: t.log,
  });
  return connectSsh(
    { host: t.host, port: cfg.mgmtSshPort, ...t.creds, hostKeyId: t.hostKeyId },
    { hostKeys, expectedHostKeys: expected, deadlineMs: cfg.sshConnectDeadlineMs, secrets: t.secrets, log: t.log },
  );
}

async function lazyNova(db: ActivityDeps['db'], box: ActivityDeps['box'], vimId: string) {
  const nova = await novaForVim(db, box, vimId);
  return () => nova;
}
