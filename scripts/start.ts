/**
 * `npm start`: the whole product on loopback — Temporal dev server (SQLite
 * under DATA_DIR, Web UI), VIM simulator, worker and API. Ctrl-C stops it all;
 * starting again resumes whatever was in flight (Temporal keeps it).
 * With TEMPORAL_ADDRESS set, no dev server is started; with OS_AUTH_URL set,
 * no simulator (the default VIM is then that OpenStack).
 */
import path from 'node:path';
import { loadConfig } from '../common/config';
import { startDevServer, DevServer } from '../runtime/dev-server';
import { Child, startComponent, stopComponent, waitForHttp } from '../runtime/processes';

async function main() {
  const cfg = loadConfig();
  const say = (m: string) => console.log(`[start] ${m}`);
  const children: Child[] = [];
  let temporal: DevServer | undefined;
  let stopping = false;

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping ...');
    for (const c of [...children].reverse()) await stopComponent(c);
    await temporal?.stop();
    say('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
    if (!cfg.externalTemporal) {
      temporal = await startDevServer({
        dataDir: path.join(cfg.dataDir, 'temporal'), port: cfg.temporalPort, uiPort: cfg.temporalUiPort,
        namespace: cfg.temporalNamespace, log: say,
      });
    }
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: cfg.dataDir, TEMPORAL_ADDRESS: cfg.temporalAddress };
    if (!process.env.OS_AUTH_URL) {
      // The simulator's servers answer SSH on their own 127.x address; the Mgmt Drivers must use that port.
      env.VIMSIM_SSH_PORT ??= '2222';
      env.MGMT_SSH_PORT ??= env.VIMSIM_SSH_PORT;
    }
    const launch = (name: Child['name']) => {
      const c = startComponent(name, env);
      children.push(c);
      void c.exited.then((code) => { if (!stopping) { say(`${name} exited (${code}); stopping everything`); void stopAll(1); } });
      return c;
    };
    if (!process.env.OS_AUTH_URL) {
      const sim = launch('vimsim');
      await waitForHttp(`http://${cfg.vimsimHost}:${cfg.vimsimPort}/healthz`, 60_000, sim);
    }
    launch('worker');
    const api = launch('api');
    await waitForHttp(`${cfg.apiBaseUrl}/healthz`, 120_000, api);
    say(`API (Tacker-compatible):  ${cfg.apiBaseUrl}`);
    say(`Temporal Web UI:          ${cfg.temporalUiUrl}`);
    if (!process.env.OS_AUTH_URL) say(`VIM simulator (Keystone): ${cfg.defaultVim.authUrl}`);
    say('ready; Ctrl-C stops everything');
  } catch (e) {
    console.error(`[start] ${(e as Error).message}`);
    await stopAll(1);
  }
}

void main();
