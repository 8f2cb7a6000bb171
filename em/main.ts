/**
 * CLI entry of the reference EM: `npx tsx em/main.ts`. Configuration from the
 * environment:
 *
 *   EM_HOST                 127.0.0.1
 *   EM_PORT                 6789 (0 = a free port; the URL is logged)
 *   EM_BEHAVIOUR            JSON Behaviour, default {"mode":"sync","result":"CONTINUE"}
 *   EM_BASIC_USER, EM_BASIC_PASSWORD      HTTP Basic credentials (both or neither)
 *   EM_OAUTH2_CLIENTS       JSON [{"clientId","clientSecret"?,"certificateX5tS256"?}]
 *   EM_OAUTH2_TOKEN_TTL_SEC 3600
 *   EM_TLS_CERT, EM_TLS_KEY PEM files: serve HTTPS
 *   EM_TLS_CA               PEM file of the CA(s) trusted for client certificates
 *   EM_TLS_REQUEST_CLIENT_CERT  true|false, default true when EM_TLS_CA is set (mutual TLS)
 *   EM_LOG_LEVEL            info
 */
import { intFromEnv } from '@nfv-orchestrator/lib/env';
import { stopOnSignal } from '@nfv-orchestrator/lib/stop-on-signal';
import fs from 'node:fs';
import pino from 'pino';
import { z } from 'zod';
import { BehaviourSchema, describeIssues } from './behaviour';
import { DEFAULT_PORT, DEFAULT_TOKEN_TTL_SEC, type EmOptions, startEm } from './server';

const ClientsEnv = z.array(
  z.strictObject({ clientId: z.string().min(1), clientSecret: z.string().optional(), certificateX5tS256: z.string().optional() }),
);


function jsonFromEnv<T>(name: string, schema: z.ZodType<T>): T | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error(`${name} is not valid JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${name}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

function boolFromEnv(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

function readPem(name: string): string | undefined {
  const file = process.env[name];
  if (!file) return undefined;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${name}: cannot read ${file}: ${(e as Error).message}`);
  }
}

export function optionsFromEnv(): EmOptions {
  const opts: EmOptions = { host: process.env.EM_HOST || '127.0.0.1', port: intFromEnv('EM_PORT', DEFAULT_PORT) };
  const behaviour = jsonFromEnv('EM_BEHAVIOUR', BehaviourSchema);
  if (behaviour) opts.behaviour = behaviour;
  const auth: NonNullable<EmOptions['auth']> = {};
  const user = process.env.EM_BASIC_USER;
  const password = process.env.EM_BASIC_PASSWORD;
  if (user !== undefined || password !== undefined) {
    if (!user || password === undefined) throw new Error('EM_BASIC_USER and EM_BASIC_PASSWORD go together');
    auth.basic = { userName: user, password };
  }
  const clients = jsonFromEnv('EM_OAUTH2_CLIENTS', ClientsEnv);
  if (clients) auth.oauth2 = { clients, tokenTtlSec: intFromEnv('EM_OAUTH2_TOKEN_TTL_SEC', DEFAULT_TOKEN_TTL_SEC) };
  const cert = readPem('EM_TLS_CERT');
  const key = readPem('EM_TLS_KEY');
  const ca = readPem('EM_TLS_CA');
  if (cert || key) {
    if (!cert || !key) throw new Error('EM_TLS_CERT and EM_TLS_KEY go together');
    auth.tls = { cert, key, ...(ca ? { ca } : {}), requestClientCert: boolFromEnv('EM_TLS_REQUEST_CLIENT_CERT', !!ca) };
    if (auth.tls.requestClientCert && !ca) throw new Error('EM_TLS_REQUEST_CLIENT_CERT needs EM_TLS_CA (the CA of the client certificates)');
  } else if (ca) {
    throw new Error('EM_TLS_CA needs EM_TLS_CERT and EM_TLS_KEY');
  }
  if (Object.keys(auth).length) opts.auth = auth;
  return opts;
}

async function main(): Promise<void> {
  const logger = pino({ name: 'em', level: process.env.EM_LOG_LEVEL ?? 'info' });
  const em = await startEm(optionsFromEnv(), logger);
  logger.info({ url: em.url, tokenEndpoint: em.tokenEndpoint, coordinations: `${em.url}/lcmcoord/v1/coordinations` }, 'ready');

  stopOnSignal(() => em.close(), logger);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(`em: ${(err as Error).message ?? err}`);
    process.exit(1);
  });
}
