/**
 * The worker's /metrics: the product's registry (common/metrics.ts) and the
 * Temporal SDK's own worker metrics (task slots, poll latency, sticky cache),
 * which the SDK's runtime exports on a loopback port of its own; the scrape
 * answers both in one Prometheus text document, so one target per worker.
 */
import http from 'node:http';
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptors } from '@temporalio/worker';
import { activityRetries, metricsRegistry } from '../common/metrics';

/** Counts every attempt after the first, by activity type (local activities included). */
export function countRetries(ctx: Context): ActivityInterceptors {
  return {
    inbound: {
      async execute(input, next) {
        if (ctx.info.attempt > 1) activityRetries.inc({ activity: ctx.info.activityType });
        return next(input);
      },
    },
  };
}

/** Reads the SDK's exposition; an empty string when it does not answer (the product's metrics are still served). */
function sdkMetrics(address: string): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get(`http://${address}/metrics`, { timeout: 2_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(res.statusCode === 200 ? Buffer.concat(chunks).toString('utf8') : ''));
      res.on('error', () => resolve(''));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(''));
  });
}

/** The whole scrape: the product's families, then the SDK's (all named temporal_*, so none repeats). */
export async function workerMetrics(sdkAddress: string | undefined): Promise<{ contentType: string; body: string }> {
  const [own, sdk] = await Promise.all([metricsRegistry.metrics(), sdkAddress ? sdkMetrics(sdkAddress) : Promise.resolve('')]);
  return { contentType: metricsRegistry.contentType, body: sdk ? `${own.trimEnd()}\n${sdk}` : own };
}
