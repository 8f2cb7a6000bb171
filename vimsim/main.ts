/**
 * CLI entry: `npx tsx vimsim/main.ts`. Configuration from the environment
 * (see vimsim/README.md): VIMSIM_HOST, VIMSIM_PORT, DATA_DIR, VIMSIM_DELAY_MS,
 * VIMSIM_AUTH_URL (required), VIMSIM_SERVICE_USER, VIMSIM_SERVICE_PASSWORD,
 * VIMSIM_SERVICE_PROJECT, VIMSIM_SEED_PROJECT, VIMSIM_SSH_PORT,
 * VIMSIM_SSH_USERS, VIMSIM_LOG_LEVEL; the Kubernetes control planes:
 * VIMSIM_KUBE_APISERVER, VIMSIM_KUBE_APISERVERS, VIMSIM_ETCD, VIMSIM_KUBELET_LEASE_RENEW_MS,
 * VIMSIM_KUBE_POD_BACKOFF_MS.
 */
import path from 'node:path';
import pino from 'pino';
import { z } from 'zod';
import { intFromEnv } from '@nfv-orchestrator/lib/env';
import { stopOnSignal } from '@nfv-orchestrator/lib/stop-on-signal';
import { DEFAULT_DELAY_MS, DEFAULT_PORT, DEFAULT_SSH_PORT, DEFAULT_SSH_USERS, startVimSim } from './server';

const SshUsersEnv = z.array(
  z.object({
    username: z.string().min(1),
    password: z.string().optional(),
    authorizedKeys: z.array(z.string()).optional(),
    sudo: z.enum(['nopasswd', 'password', 'none']).optional(),
  }),
);

/** VIMSIM_KUBE_APISERVERS: {"v1.36.3": "/path/kube-apiserver-v1.36.3", ...}, the API servers by the version an image tag names. */
const ApiserversEnv = z.record(z.string().regex(/^v\d+\.\d+\.\d+$/), z.string().min(1));

/** VIMSIM_ADDRESS_BLOCK: 0-250, where the seeded subnets' address pools start (127.20.<block>.2). */
function addressBlock(): number {
  const block = intFromEnv('VIMSIM_ADDRESS_BLOCK', 0);
  if (block < 0 || block > 250) throw new Error(`VIMSIM_ADDRESS_BLOCK must be 0-250, not ${block}`);
  return block;
}

async function main(): Promise<void> {
  const logger = pino({ name: 'vimsim', level: process.env.VIMSIM_LOG_LEVEL ?? 'info' });
  const authUrl = process.env.VIMSIM_AUTH_URL;
  if (!authUrl) throw new Error('VIMSIM_AUTH_URL (the Keystone v3 URL tokens are validated against) is required');
  const sshUsers = process.env.VIMSIM_SSH_USERS ? SshUsersEnv.parse(JSON.parse(process.env.VIMSIM_SSH_USERS)) : DEFAULT_SSH_USERS;
  const sshPort = process.env.VIMSIM_SSH_PORT === 'off' ? 0 : intFromEnv('VIMSIM_SSH_PORT', DEFAULT_SSH_PORT);
  const sim = await startVimSim(
    {
      host: process.env.VIMSIM_HOST || '127.0.0.1',
      port: intFromEnv('VIMSIM_PORT', DEFAULT_PORT),
      dataDir: path.resolve(process.env.DATA_DIR || './data'),
      delayMs: intFromEnv('VIMSIM_DELAY_MS', DEFAULT_DELAY_MS),
      auth: {
        authUrl,
        username: process.env.VIMSIM_SERVICE_USER || 'vimsim',
        password: process.env.VIMSIM_SERVICE_PASSWORD ?? '',
        projectName: process.env.VIMSIM_SERVICE_PROJECT || 'service',
      },
      seedProject: process.env.VIMSIM_SEED_PROJECT || 'admin',
      addressBlock: addressBlock(),
      sshPort,
      sshUsers,
      kube: {
        apiserverBin: process.env.VIMSIM_KUBE_APISERVER || undefined,
        apiserverBins: process.env.VIMSIM_KUBE_APISERVERS ? ApiserversEnv.parse(JSON.parse(process.env.VIMSIM_KUBE_APISERVERS)) : undefined,
        etcdBin: process.env.VIMSIM_ETCD || undefined,
        leaseRenewMs: process.env.VIMSIM_KUBELET_LEASE_RENEW_MS ? intFromEnv('VIMSIM_KUBELET_LEASE_RENEW_MS', 10_000) : undefined,
        podBackoffMs: intFromEnv('VIMSIM_KUBE_POD_BACKOFF_MS', 2000),
      },
    },
    logger,
  );
  logger.info({ url: sim.url, keystone: authUrl }, 'ready');

  stopOnSignal(() => sim.close(), logger);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
