/**
 * Manual use: runs the embedded Keystone, Heat and Octavia until Ctrl-C.
 *   DATA_DIR=/tmp/x KEYSTONE_PORT=15000 HEAT_PORT=15004 npx tsx runtime/openstack/main.ts
 * Env: DATA_DIR (./data), KEYSTONE_PORT (5000), HEAT_PORT (8004), OCTAVIA_PORT (9876), HEAT_TASK_SLEEP_SCALE (1),
 * VIMSIM_URL (http://127.0.0.1:9891), API_URL (http://127.0.0.1:9890), HEAT_DATABASE_URL (SQLite),
 * KEYSTONE_TOKEN_EXPIRATION (3600 s).
 */
import path from 'node:path';
import { EmbeddedCloud, startEmbeddedCloud } from './index';
import { venvBin } from './install';

async function main(): Promise<void> {
  const e = process.env;
  const log = (m: string) => console.log(`[openstack] ${m}`);
  let cloud: EmbeddedCloud | undefined;
  cloud = await startEmbeddedCloud({
    dataDir: path.resolve(e.DATA_DIR ?? 'data'),
    keystonePort: Number(e.KEYSTONE_PORT ?? 5000),
    heatPort: Number(e.HEAT_PORT ?? 8004),
    octaviaPort: Number(e.OCTAVIA_PORT ?? 9876),
    heatSleepScale: e.HEAT_TASK_SLEEP_SCALE ? Number(e.HEAT_TASK_SLEEP_SCALE) : undefined,
    simulatorUrl: e.VIMSIM_URL ?? 'http://127.0.0.1:9891',
    apiUrl: e.API_URL ?? 'http://127.0.0.1:9890',
    heatDatabaseUrl: e.HEAT_DATABASE_URL || undefined,
    tokenExpirationSec: e.KEYSTONE_TOKEN_EXPIRATION ? Number(e.KEYSTONE_TOKEN_EXPIRATION) : undefined,
    log,
    onUnexpectedExit: (name) => {
      log(`${name} died; stopping`);
      void (cloud ? cloud.stop() : Promise.resolve()).then(() => process.exit(1));
    },
  });
  const c = cloud;
  log(`keystone pid ${c.keystonePid}, heat pid ${c.heatPid}, octavia pid ${c.octaviaPid}. Try:`);
  log(`  . ${c.openrc} && ${venvBin('openstack')} stack list`);
  let stopping = false;
  const stop = (sig: string) => {
    if (stopping) return;
    stopping = true;
    log(`${sig}: stopping Octavia and Heat, then Keystone`);
    c.stop().then(() => process.exit(0), (err) => (console.error(err), process.exit(1)));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
