/**
 * The running product under test, shared between jest's global setup, the
 * test files (which may kill and restart the worker) and the teardown, through
 * a small JSON file named by env PRODUCT_STATE.
 */
import fs from 'node:fs';

export interface ProductState {
  dataDir: string;
  logDir: string;
  apiUrl: string;
  vimsimUrl: string;
  /** The embedded Keystone (v3) and Heat; `admin` with adminPassword (this run's own) in project admin. */
  keystoneUrl: string;
  heatUrl: string;
  temporalAddress: string;
  adminPassword: string;
  /** Environment each component was started with. */
  env: Record<string, string>;
  /** What the API adds to it: the service user it checks callers' tokens as (runtime/cloud.ts). */
  apiEnv: Record<string, string>;
  pids: Record<string, number>;
}

export function readState(): ProductState {
  const file = process.env.PRODUCT_STATE;
  if (!file) throw new Error('PRODUCT_STATE is not set: run through jest with the harness on (not HARNESS=off)');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ProductState;
}

export function writeState(s: ProductState): void {
  fs.writeFileSync(process.env.PRODUCT_STATE!, JSON.stringify(s, null, 2));
}
