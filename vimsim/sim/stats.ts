/**
 * Per-operation API call counters (compute.server.create, network.port.create,
 * auth.unauthorized, ...), so tests can assert e.g. "Heat created exactly one
 * server". `calls` counts every request, `accepted` those answered below 400.
 * In memory only (since process start).
 */
import type { Response } from 'express';

export class Stats {
  private calls: Record<string, number> = {};
  private accepted: Record<string, number> = {};

  track(operation: string, res?: Response): void {
    this.calls[operation] = (this.calls[operation] ?? 0) + 1;
    res?.once('finish', () => {
      if (res.statusCode < 400) this.accepted[operation] = (this.accepted[operation] ?? 0) + 1;
    });
  }

  snapshot() {
    return { calls: { ...this.calls }, accepted: { ...this.accepted } };
  }

  reset(): void {
    this.calls = {};
    this.accepted = {};
  }
}
