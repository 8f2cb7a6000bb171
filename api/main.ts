/** API process: database, Temporal client, default VIM, then listen. */
import { loadConfig } from '../common/config';
import { outboundSettings } from '../common/outbound';
import { openStore } from '../store';
import { createLogger } from '../common/log';
import { resealUnderCurrentKey } from '../store/reseal';
import { SecretBox } from '../common/secrets';
import { connectClient, ensureSearchAttributes } from '../common/temporal';
import { startTracing } from '../infra/telemetry';
import { ensureDefaultVim } from '../infra/vim';
import { createApp } from './app';
import { Policy } from './auth/policy';
import { TokenValidator } from './auth/tokens';
import { reconcileOperations } from './operations';
import { reconcileMagnumOperations } from './magnum/operations';
import { reconcilePackages } from './package-reconcile';
import { dispatchPending, reconcileNotifications } from '../notify/dispatch';

async function main() {
  const tracing = startTracing('nfv-api'); // first: the clients made below are traced
  const cfg = loadConfig();
  outboundSettings(); // a malformed OUTBOUND_* setting stops the start, not the first call
  const log = createLogger('api', cfg.logLevel);
  const db = await openStore(cfg);
  const box = SecretBox.fromEnvOrFile(cfg.dataDir);
  const resealed = await resealUnderCurrentKey(db, box);
  if (resealed) log.warn({ count: resealed }, 'sealed values moved to the current SECRET_KEY; SECRET_KEY_PREVIOUS can go once every API and worker runs with the new key');
  const temporal = await connectClient(cfg);
  await ensureSearchAttributes(temporal, cfg.temporalNamespace);
  await ensureDefaultVim(db, box, cfg);
  const ctx = { db, box, cfg, temporal, log, tokens: new TokenValidator(cfg.identity), policy: Policy.load(cfg.identity.policyFile) };
  await reconcilePackages(ctx);
  const restarted = await reconcileOperations(ctx);
  if (restarted) log.warn({ count: restarted }, 'started workflows of op occs left unstarted by a crash');
  const magnumRestarted = await reconcileMagnumOperations(ctx);
  if (magnumRestarted) log.warn({ count: magnumRestarted }, 'started workflows of Magnum operations left unstarted by a crash');
  await reconcileNotifications(temporal, cfg.taskQueue, db);
  // notifications queued by an API that could not wake their delivery (Temporal briefly unreachable)
  const sweep = setInterval(() => {
    dispatchPending(temporal, cfg.taskQueue, db).catch((e: Error) => log.warn({ err: { message: e.message } }, 'could not wake notification deliveries'));
  }, 60_000);
  sweep.unref();
  const server = createApp(ctx).listen(cfg.apiPort, cfg.apiHost, () => log.info({ url: cfg.apiBaseUrl }, 'API listening'));
  const stop = () => server.close(async () => {
    await temporal.connection.close();
    await db.close();
    await tracing.shutdown();
    log.info('API stopped');
  });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
