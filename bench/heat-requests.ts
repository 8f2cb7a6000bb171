/**
 * Heat's API requests, counted from its own log: Heat's WSGI layer logs
 * "Processing request: GET /v1/<project>/stacks/<name>/<id>" at INFO for each
 * one (no query string). take() reads what was logged since its last call, by
 * kind, so that a phase of a benchmark gets its own calls per operation.
 */
import fs from 'node:fs';
import path from 'node:path';

const LINE = /Processing request: (\w+) \/v1\/[^/\s]+\/(\S*)/g;
const NAMES = ['stacks', '{name}', '{id}'];

/** "GET stacks/{name}/{id}/resources": the path's kind, without names and ids. */
export function requestKind(method: string, tail: string): string {
  const seg = tail.split('/');
  const kind = seg.map((s, i) => (i < 3 ? NAMES[i] : i === 4 && seg[3] === 'resources' ? '{resource}' : s));
  return `${method} ${seg[0] === 'stacks' ? kind.join('/') : seg[0]}`;
}

export interface HeatRequestCount { total: number; byKind: Record<string, number> }

export class HeatRequests {
  private offset = 0;
  constructor(private readonly logPath: string) {}

  static ofProduct(dataDir: string): HeatRequests {
    const r = new HeatRequests(path.join(dataDir, 'openstack', 'logs', 'heat.log'));
    r.take();
    return r;
  }

  take(): HeatRequestCount {
    const size = fs.existsSync(this.logPath) ? fs.statSync(this.logPath).size : 0;
    if (size < this.offset) this.offset = 0; // rotated
    const fd = fs.openSync(this.logPath, 'r');
    const buf = Buffer.alloc(size - this.offset);
    try {
      fs.readSync(fd, buf, 0, buf.length, this.offset);
    } finally {
      fs.closeSync(fd);
    }
    const text = buf.toString('utf8');
    const end = text.lastIndexOf('\n') + 1; // a line half written is read next time
    this.offset += Buffer.byteLength(text.slice(0, end));
    const byKind: Record<string, number> = {};
    for (const m of text.slice(0, end).matchAll(LINE)) byKind[requestKind(m[1], m[2])] = (byKind[requestKind(m[1], m[2])] ?? 0) + 1;
    return { total: Object.values(byKind).reduce((a, b) => a + b, 0), byKind };
  }
}

/** Counts per operation, one decimal. */
export function perOp(c: HeatRequestCount, ops: number): HeatRequestCount {
  const r = (n: number) => Math.round((n / ops) * 10) / 10;
  return { total: r(c.total), byKind: Object.fromEntries(Object.entries(c.byKind).map(([k, n]) => [k, r(n)])) };
}
