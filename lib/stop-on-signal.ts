/** Standalone services (simulator, EM) close cleanly on SIGINT/SIGTERM, once. */
export function stopOnSignal(close: () => Promise<void>, log: { info(o: object, m: string): void; error(o: object, m: string): void }): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
