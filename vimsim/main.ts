/**
 * CLI entry: `npx tsx vimsim/main.ts`. Configuration from the environment:
 * VIMSIM_HOST (127.0.0.1), VIMSIM_PORT (9891), DATA_DIR (./data; state under
 * DATA_DIR/vimsim/), VIMSIM_DELAY_MS (300), VIMSIM_TOKEN_TTL_SEC (3600),
 * VIMSIM_SSH_CIDR (127.20.0.0/16), VIMSIM_SSH_PORT (22; 0 or "off" = no SSH
 * endpoints), VIMSIM_SSH_USERS (JSON list of {username,password?,authorizedKeys?,sudo?};
 * default ubuntu/ubuntu), VIMSIM_USERS (JSON list of {name,password,project,domain?}),
 * VIMSIM_LOG_LEVEL (info).
 */
import { intFromEnv } from '../common/config';
import { stopOnSignal } from '../runtime/stop-on-signal';
import path from 'node:path';
import pino from 'pino';
import { z } from 'zod';
import { DEFAULT_DELAY_MS, DEFAULT_PORT, DEFAULT_SSH_CIDR, DEFAULT_SSH_PORT, DEFAULT_SSH_USERS, DEFAULT_USERS, startVimSim } from './server';

const UsersEnv = z.array(
  z.object({ name: z.string(), password: z.string(), project: z.string(), domain: z.string().optional() }),
);

const SshUsersEnv = z.array(
  z.object({
    username: z.string().min(1),
    password: z.string().optional(),
    authorizedKeys: z.array(z.string()).optional(),
    sudo: z.enum(['nopasswd', 'password', 'none']).optional(),
  }),
);


async function main(): Promise<void> {
  const logger = pino({ name: 'vimsim', level: process.env.VIMSIM_LOG_LEVEL ?? 'info' });
  const users = process.env.VIMSIM_USERS ? UsersEnv.parse(JSON.parse(process.env.VIMSIM_USERS)) : DEFAULT_USERS;
  const sshUsers = process.env.VIMSIM_SSH_USERS ? SshUsersEnv.parse(JSON.parse(process.env.VIMSIM_SSH_USERS)) : DEFAULT_SSH_USERS;
  const sshPort = process.env.VIMSIM_SSH_PORT === 'off' ? 0 : intFromEnv('VIMSIM_SSH_PORT', DEFAULT_SSH_PORT);
  const sim = await startVimSim(
    {
      host: process.env.VIMSIM_HOST || '127.0.0.1',
      port: intFromEnv('VIMSIM_PORT', DEFAULT_PORT),
      dataDir: path.resolve(process.env.DATA_DIR || './data'),
      delayMs: intFromEnv('VIMSIM_DELAY_MS', DEFAULT_DELAY_MS),
      tokenTtlSec: intFromEnv('VIMSIM_TOKEN_TTL_SEC', 3600),
      sshCidr: process.env.VIMSIM_SSH_CIDR || DEFAULT_SSH_CIDR,
      sshPort,
      sshUsers,
      users,
    },
    logger,
  );
  logger.info({ keystone: sim.keystoneUrl, users: users.map((u) => `${u.name}@${u.project}`) }, 'ready');

  stopOnSignal(() => sim.close(), logger);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
