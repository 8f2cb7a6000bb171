/**
 * SSH to a server of a VNF or a cluster, the one way every driver connects:
 * its host key pinned under `hostKeyId` (a VNFC id, a cluster node's server
 * id); with no pin yet (first connection, or the server was replaced) the
 * first key must be one the server printed on its console
 * (SSH_HOST_KEY_SOURCE), refused before any credential is sent otherwise.
 */
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

export async function sshToServer({ db, box, cfg }: Pick<ActivityDeps, 'db' | 'box' | 'cfg'>, t: ServerSshTarget): Promise<SshSession> {
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
