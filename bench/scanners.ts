/**
 * `npm run bench:scanners`: every function that scans a remote or
 * tenant-supplied text (an error body, a script's output, a request's
 * secrets) against adversarial inputs of 1 MiB ('pass' repeated, nested
 * quotes, long key=value runs, URL and Bearer fragments, a secret whose every
 * beginning is a run), each as CPU time, as a ratio to a plain text of the
 * same size through the same function, and as its growth from a quarter of
 * the size (4 when linear, 16 when quadratic), all in the same run. The run
 * fails (exit 1) when a call passes CPU_BUDGET_MS or grows more than
 * GROWTH_BUDGET times (checked from GROWTH_FLOOR_MS up: below, noise).
 * Results go to bench/results/scanners-latest.json (not committed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { maskErrorText } from '../common/secret-errors';
import { excerpt } from '../common/outbound';
import { redact, redactString } from '../common/secrets';
import { maskScriptOutput } from '../mgmt/script-mask';
import { redactSecrets } from '../common/secrets';

const MiB = 1024 * 1024;
const GROWTH_BUDGET = 8;
const GROWTH_FLOOR_MS = 5;
const CPU_BUDGET_MS = 1000;

const fill = (unit: string) => (size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
const PLAIN = fill('GET http://keystone:5000/v3/auth/tokens answered 200; the quick brown fox. ');
const HOSTILE: Record<string, (size: number) => string> = {
  "'pass' repeated": fill('pass'),
  "'password=' repeated": fill('password='),
  'nested quotes': fill(`"'`),
  'key=value runs': fill('a=b;'),
  'secret keys as JSON': fill('{"token": "'),
  'URL fragments': fill('http://u:'),
  'Bearer fragments': fill('Bearer '),
  'a run, then another': (size) => `${'a'.repeat(size - 1)}c`,
};
/** A request's secret of 64 KiB whose every beginning is a run of 'a' (maskScriptOutput's worst case). */
const BIG_SECRET = `${'a'.repeat(64 * 1024 - 1)}b`;

const SCANNERS: Record<string, (text: string) => unknown> = {
  'excerpt (op occ error from a remote body)': (t) => excerpt(t, ['s3cret-value']),
  'redactString (logs, errors)': (t) => redactString(t),
  'redact (a JSON value with the text)': (t) => redact({ error: { message: t, password: t.slice(0, 1024) } }),
  'maskErrorText (op occ error)': (t) => maskErrorText(t, ['s3cret-value', BIG_SECRET]),
  'maskScriptOutput (script output, cut off)': (t) => maskScriptOutput(t, ['s3cret-value', BIG_SECRET], { truncated: true }),
  'redactSecrets (SSH output)': (t) => redactSecrets(t, ['s3cret-value', BIG_SECRET]),
};

/** CPU milliseconds of the best of three calls (the least disturbed by the rest of the machine). */
function cpuMs(fn: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = process.cpuUsage();
    fn();
    const used = process.cpuUsage(t0);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

interface Row { scanner: string; input: string; cpuMs: number; plainMs: number; vsPlain: number; growth: number; ok: boolean }

function main(): void {
  const rows: Row[] = [];
  for (const [scanner, scan] of Object.entries(SCANNERS)) {
    const plainMs = cpuMs(() => scan(PLAIN(MiB)));
    for (const [input, make] of Object.entries(HOSTILE)) {
      const [quarter, whole] = [make(MiB / 4), make(MiB)];
      const ms = cpuMs(() => scan(whole));
      const growth = ms / Math.max(cpuMs(() => scan(quarter)), 0.05);
      const ok = ms <= CPU_BUDGET_MS && (ms < GROWTH_FLOOR_MS || growth <= GROWTH_BUDGET);
      rows.push({ scanner, input, cpuMs: ms, plainMs, vsPlain: ms / Math.max(plainMs, 0.05), growth, ok });
    }
  }
  console.log(`1 MiB inputs: CPU ms of a call, x a plain 1 MiB text, growth from 256 KiB (linear 4, quadratic 16; budget ${GROWTH_BUDGET} from ${GROWTH_FLOOR_MS} ms; ${CPU_BUDGET_MS} ms a call)\n`);
  console.log(`${'function'.padEnd(44)} ${'input'.padEnd(22)} ${'CPU ms'.padStart(8)} ${'x plain'.padStart(8)} ${'growth'.padStart(7)}`);
  for (const r of rows) {
    console.log(`${r.scanner.padEnd(44)} ${r.input.padEnd(22)} ${r.cpuMs.toFixed(1).padStart(8)} ${r.vsPlain.toFixed(1).padStart(8)} ${r.growth.toFixed(1).padStart(7)}${r.ok ? '' : '  OVER BUDGET'}`);
  }
  const out = path.join(__dirname, 'results', 'scanners-latest.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version }, budget: { growth: GROWTH_BUDGET, growthFloorMs: GROWTH_FLOOR_MS, cpuMs: CPU_BUDGET_MS }, rows }, null, 2));
  console.log(`\n${out}`);
  process.exit(rows.every((r) => r.ok) ? 0 : 1);
}

main();
