/**
 * The sealed channel between the worker and the scripts worker. A package
 * script's job (the script's bytes, the JSON document for its stdin, which
 * holds the request's secrets, and its limits) passes through Temporal (an
 * activity result, then an activity input), so it travels sealed: AES-256-GCM
 * under a channel key derived from SECRET_KEY (HKDF-SHA256, its own label).
 * Temporal history only ever holds the ciphertext. The scripts worker is
 * given the derived key alone (SCRIPTS_CHANNEL_KEY), never SECRET_KEY: it can
 * open jobs, not the database's secrets.
 */
import { ApplicationFailure } from '@temporalio/common';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SecretBox } from '../common/secrets';
import type { Endpoint } from '../common/endpoints';

export interface ScriptLimits {
  /** Killed after this long. */
  timeoutMs: number;
  /** Address-space limit (prlimit --as); 0 = none. */
  memoryBytes: number;
  /** Per stream (stdout, stderr): more and the script is killed. */
  outputBytes: number;
  /** CPU seconds (RLIMIT_CPU), biggest file it may write (RLIMIT_FSIZE), size of its private /tmp; absent in jobs sealed before these existed. */
  cpuSeconds?: number;
  fileBytes?: number;
  tmpBytes?: number;
}

export interface ScriptJob {
  /** The artifact's path in the package; what messages name. */
  name: string;
  script: Buffer;
  /** The JSON document written to the script's stdin. */
  stdin: string;
  /** Values masked in whatever the script prints (mgmt/script-mask.ts). */
  secrets: string[];
  limits: ScriptLimits;
  /** Where the script may connect to (its instance's VNFCs, what the operator allows); nothing else is reachable in the sandbox. */
  reach?: Endpoint[];
  /** The project it runs for: its share of the scripts worker (mgmt/script-share.ts). */
  project?: string;
}

/** What a script did: exit code (or the signal that ended it), its output's last characters, secrets masked. */
export interface ScriptOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Env of the scripts worker that carries the channel key (base64); read once and removed from its environment. */
export const CHANNEL_KEY_ENV = 'SCRIPTS_CHANNEL_KEY';
/** Sealed jobs ride in Temporal payloads (2 MiB at most by default): a bigger job is refused, naming the artifact. */
export const MAX_SEALED_JOB = 1536 * 1024;

const HKDF_INFO = 'nfv-orchestrator/scripts-channel/v1';
const FORMAT = 'sj1';
const AAD = Buffer.from(FORMAT);

export function deriveScriptChannelKey(secretKey: Buffer): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', secretKey, Buffer.alloc(0), HKDF_INFO, 32));
}

/** The channel key of this installation: from SECRET_KEY (base64) or DATA_DIR/secret.key, as SecretBox.fromEnvOrFile finds it. */
export function scriptChannelKeyFor(dataDir: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.SECRET_KEY) return deriveScriptChannelKey(Buffer.from(env.SECRET_KEY, 'base64'));
  SecretBox.fromEnvOrFile(dataDir); // generates the key file on first use, and checks it
  return deriveScriptChannelKey(Buffer.from(fs.readFileSync(path.join(dataDir, 'secret.key'), 'utf8').trim(), 'base64'));
}

/** The scripts worker's key, from SCRIPTS_CHANNEL_KEY; the variable is then removed from its environment. */
export function scriptChannelKeyFromEnv(env: NodeJS.ProcessEnv = process.env): Buffer {
  const raw = env[CHANNEL_KEY_ENV];
  delete env[CHANNEL_KEY_ENV];
  const key = raw ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) throw new Error(`${CHANNEL_KEY_ENV} must be 32 bytes in base64 (the process that starts the scripts worker derives it from SECRET_KEY)`);
  return key;
}

/** Plaintext: u32 length of the JSON header, the header, the script's bytes. */
export function sealScriptJob(key: Buffer, job: ScriptJob, what: string): string {
  const header = Buffer.from(JSON.stringify({ name: job.name, stdin: job.stdin, secrets: job.secrets, limits: job.limits, reach: job.reach ?? [], project: job.project ?? '' }));
  const len = Buffer.alloc(4);
  len.writeUInt32BE(header.length);
  const plain = Buffer.concat([len, header, job.script]);
  const sealedSize = FORMAT.length + 1 + Math.ceil((12 + 16 + plain.length) / 3) * 4;
  if (sealedSize > MAX_SEALED_JOB) {
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MiB`;
    throw ApplicationFailure.nonRetryable(
      `${what} ${job.name}: the script with its input is ${mib(plain.length)} (${mib(sealedSize)} sealed); at most ${mib(MAX_SEALED_JOB)} sealed can be handed to the scripts worker`,
      'ScriptTooLarge',
    );
  }
  const iv = crypto.randomBytes(12);
  const c = crypto.createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(AAD);
  const data = Buffer.concat([c.update(plain), c.final()]);
  return `${FORMAT}:${Buffer.concat([iv, c.getAuthTag(), data]).toString('base64')}`;
}

export function openScriptJob(key: Buffer, sealed: string): ScriptJob {
  const [format, body] = sealed.split(':');
  if (format !== FORMAT || !body) throw new Error('not a sealed script job');
  const raw = Buffer.from(body, 'base64');
  const d = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  d.setAAD(AAD);
  d.setAuthTag(raw.subarray(12, 28));
  const plain = Buffer.concat([d.update(raw.subarray(28)), d.final()]);
  const n = plain.readUInt32BE(0);
  const header = JSON.parse(plain.subarray(4, 4 + n).toString('utf8')) as Omit<ScriptJob, 'script'>;
  return { ...header, script: plain.subarray(4 + n) };
}
