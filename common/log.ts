/** One pino logger per process; every logged object passes through redact(). */
import pino from 'pino';
import { redact, redactString } from './secrets';

export function createLogger(name: string, level = process.env.LOG_LEVEL || 'info') {
  return pino({
    name,
    level,
    formatters: { log: (obj) => redact(obj) },
    hooks: {
      logMethod(args, method) {
        // Messages may embed URLs with credentials (e.g. proxies).
        const masked = args.map((a) => (typeof a === 'string' ? redactString(a) : a));
        return method.apply(this, masked as Parameters<typeof method>);
      },
    },
  });
}
export type Logger = ReturnType<typeof createLogger>;
