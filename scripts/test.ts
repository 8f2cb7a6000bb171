/**
 * `npm test`: the type check, the whole suite on the embedded SQLite store,
 * then every test that drives the running product (through its API, its
 * worker or its store) again with the product on PostgreSQL
 * (TEST_STORE=postgres, a throw-away server the harness starts). Extra
 * arguments go to both jest runs (a file pattern narrows them).
 *   TEST_STORES=sqlite | postgres | sqlite,postgres (default)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const TEST_DIR = path.join(ROOT, 'test');
const JEST = path.join(ROOT, 'node_modules', '.bin', 'jest');
/** A test file drives the product when it uses these helpers (the harness's API, worker or store). */
const DRIVES_PRODUCT = /from '\.\/support\/(api|product-store|worker-control)'/;

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: ROOT, env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const stores = (process.env.TEST_STORES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const extra = process.argv.slice(2);
run(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['--noEmit']);
if (stores.includes('sqlite')) run(JEST, ['--runInBand', '--forceExit', ...extra], { ...process.env, TEST_STORE: 'sqlite' });
if (stores.includes('postgres')) {
  const files = fs.readdirSync(TEST_DIR).filter((f) => f.endsWith('.test.ts') && DRIVES_PRODUCT.test(fs.readFileSync(path.join(TEST_DIR, f), 'utf8')))
    // multi-host.test.ts starts its own PostgreSQL-backed hosts whatever the harness runs on
    .filter((f) => f !== 'multi-host.test.ts').map((f) => `test/${f}`);
  const narrowed = extra.length ? files.filter((f) => extra.some((e) => f.includes(e.replace(/^test\//, '')))) : files;
  if (narrowed.length) {
    console.log(`\n== the product on PostgreSQL: ${narrowed.length} test files`);
    run(JEST, ['--runInBand', '--forceExit', ...narrowed], { ...process.env, TEST_STORE: 'postgres' });
  }
}
