/**
 * Temporal wiring shared by the worker, the API and the tests: connection
 * (plaintext, TLS or mTLS from the environment), the typed search attributes
 * every LCM workflow carries, and Web UI links.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { Connection, Client, type ConnectionOptions, type TLSConfig } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import type { Config } from './config';
import { SEARCH_ATTRIBUTES } from './search-attributes';

export * from './search-attributes';

/**
 * Transport security towards the Temporal frontend, from the environment:
 *
 * | variable | meaning |
 * |---|---|
 * | `TEMPORAL_TLS` | `true`: TLS, server verified against the system roots; `false`: plaintext (an error with any setting below) |
 * | `TEMPORAL_TLS_CA` | PEM file of the CA(s) that signed the frontend's certificate (replaces the system roots); implies TLS |
 * | `TEMPORAL_TLS_CERT`, `TEMPORAL_TLS_KEY` | PEM client certificate and its unencrypted private key for mTLS; both or neither; implies TLS |
 * | `TEMPORAL_TLS_SERVER_NAME` | the name the frontend's certificate is verified against (and SNI), when it is not the host of `TEMPORAL_ADDRESS`; implies TLS |
 *
 * Files are read and checked at start (readable, PEM, key matches certificate,
 * certificate in its validity period); a bad setting throws a
 * TemporalTlsConfigError naming the variable.
 */
export interface TemporalTls {
  /** For Connection.connect / NativeConnection.connect. */
  config: TLSConfig;
  /** For logs and error messages, e.g. `mTLS (CA /etc/nfv/temporal-ca.pem, client CN=nfv-worker, server name temporal.internal)`. */
  description: string;
}

export class TemporalTlsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemporalTlsConfigError';
  }
}

const TLS_VARS = ['TEMPORAL_TLS_CA', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_SERVER_NAME'] as const;

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

function readPemFile(name: string, file: string): Buffer {
  let data: Buffer;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
    data = fs.readFileSync(file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new TemporalTlsConfigError(`${name}=${file}: cannot read the file (${err.code === 'ENOTFILE' ? 'not a regular file' : err.message})`);
  }
  if (data.length === 0) throw new TemporalTlsConfigError(`${name}=${file}: the file is empty`);
  return data;
}

/** Every certificate in a PEM file; throws naming the variable when there is none or one does not parse. */
function parseCertificates(name: string, file: string, pem: Buffer): X509Certificate[] {
  const blocks = pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new TemporalTlsConfigError(`${name}=${file}: no PEM certificate ("-----BEGIN CERTIFICATE-----") in the file`);
  return blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch (e) {
      throw new TemporalTlsConfigError(`${name}=${file}: certificate ${i + 1} does not parse (${(e as Error).message})`);
    }
  });
}

function checkValidity(name: string, file: string, cert: X509Certificate, now = Date.now()): void {
  if (Date.parse(cert.validTo) < now) throw new TemporalTlsConfigError(`${name}=${file}: the certificate expired on ${cert.validTo}`);
  if (Date.parse(cert.validFrom) > now) throw new TemporalTlsConfigError(`${name}=${file}: the certificate is not valid before ${cert.validFrom}`);
}

function commonName(cert: X509Certificate): string {
  return /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1] ?? cert.subject.replace(/\n/g, ', ');
}

/**
 * Parses the TEMPORAL_TLS* settings (see TemporalTls). Undefined = plaintext.
 * Throws TemporalTlsConfigError for a missing or unreadable file, a
 * certificate without its key (or the reverse), a key that does not match, an
 * expired client certificate, or TEMPORAL_TLS=false with other TLS settings.
 */
export function temporalTlsFromEnv(env: NodeJS.ProcessEnv = process.env): TemporalTls | undefined {
  const rawFlag = envValue(env, 'TEMPORAL_TLS');
  let flag: boolean | undefined;
  if (rawFlag !== undefined) {
    if (/^(true|1)$/i.test(rawFlag)) flag = true;
    else if (/^(false|0)$/i.test(rawFlag)) flag = false;
    else throw new TemporalTlsConfigError(`TEMPORAL_TLS must be "true" or "false", got "${rawFlag}"`);
  }
  const set = TLS_VARS.filter((n) => envValue(env, n) !== undefined);
  if (flag === false) {
    if (set.length) throw new TemporalTlsConfigError(`TEMPORAL_TLS=false contradicts ${set.join(', ')} (which enable TLS); unset one or the other`);
    return undefined;
  }
  if (!flag && set.length === 0) return undefined;

  const config: TLSConfig = {};
  const parts: string[] = [];
  const caFile = envValue(env, 'TEMPORAL_TLS_CA');
  if (caFile) {
    const pem = readPemFile('TEMPORAL_TLS_CA', caFile);
    parseCertificates('TEMPORAL_TLS_CA', caFile, pem);
    config.serverRootCACertificate = pem;
    parts.push(`CA ${caFile}`);
  } else {
    parts.push('system CA roots');
  }

  const certFile = envValue(env, 'TEMPORAL_TLS_CERT');
  const keyFile = envValue(env, 'TEMPORAL_TLS_KEY');
  if (certFile && !keyFile) throw new TemporalTlsConfigError('TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not: mTLS needs the client certificate and its private key');
  if (keyFile && !certFile) throw new TemporalTlsConfigError('TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not: mTLS needs the client certificate and its private key');
  if (certFile && keyFile) {
    const crt = readPemFile('TEMPORAL_TLS_CERT', certFile);
    const leaf = parseCertificates('TEMPORAL_TLS_CERT', certFile, crt)[0];
    checkValidity('TEMPORAL_TLS_CERT', certFile, leaf);
    const key = readPemFile('TEMPORAL_TLS_KEY', keyFile);
    if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(key.toString('utf8'))) {
      throw new TemporalTlsConfigError(`TEMPORAL_TLS_KEY=${keyFile}: the key is encrypted; give an unencrypted PEM key (protect it by file permissions)`);
    }
    let keyObject: KeyObject;
    try {
      keyObject = createPrivateKey(key);
    } catch (e) {
      throw new TemporalTlsConfigError(`TEMPORAL_TLS_KEY=${keyFile}: not a PEM private key (${(e as Error).message})`);
    }
    if (!leaf.checkPrivateKey(keyObject)) {
      throw new TemporalTlsConfigError(`TEMPORAL_TLS_KEY=${keyFile} is not the private key of TEMPORAL_TLS_CERT=${certFile} (CN=${commonName(leaf)})`);
    }
    config.clientCertPair = { crt, key };
    parts.push(`client CN=${commonName(leaf)}`);
  }

  const serverName = envValue(env, 'TEMPORAL_TLS_SERVER_NAME');
  if (serverName) {
    if (!/^[A-Za-z0-9._:[\]-]+$/.test(serverName)) throw new TemporalTlsConfigError(`TEMPORAL_TLS_SERVER_NAME must be a host name, got "${serverName}"`);
    config.serverNameOverride = serverName;
    parts.push(`server name ${serverName}`);
  }
  return { config, description: `${config.clientCertPair ? 'mTLS' : 'TLS'} (${parts.join(', ')})` };
}

export interface TemporalConnectionSettings {
  address: string;
  tls?: TLSConfig;
  /** `plaintext`, or the TemporalTls description. */
  security: string;
}

/**
 * Where and how every process of the product connects to Temporal (the API's
 * and the worker's Client, the worker's NativeConnection). Throws at start on
 * bad TLS settings, and on TLS settings without TEMPORAL_ADDRESS (the local
 * dev server that `npm start` runs serves plaintext only).
 */
export function temporalConnectionSettings(cfg: Pick<Config, 'temporalAddress' | 'externalTemporal'>, env: NodeJS.ProcessEnv = process.env): TemporalConnectionSettings {
  const tls = temporalTlsFromEnv(env);
  if (tls && !cfg.externalTemporal) {
    throw new TemporalTlsConfigError('TEMPORAL_TLS settings need TEMPORAL_ADDRESS (an external Temporal frontend): the local dev server that npm start runs serves plaintext only');
  }
  return { address: cfg.temporalAddress, tls: tls?.config, security: tls?.description ?? 'plaintext' };
}

export async function connectClient(
  cfg: Config,
  o: { env?: NodeJS.ProcessEnv; connectTimeout?: ConnectionOptions['connectTimeout'] } = {},
): Promise<Client> {
  const s = temporalConnectionSettings(cfg, o.env);
  let connection: Connection;
  try {
    connection = await Connection.connect({
      address: s.address, ...(s.tls ? { tls: s.tls } : {}), ...(o.connectTimeout !== undefined ? { connectTimeout: o.connectTimeout } : {}),
    });
  } catch (e) {
    const why = await diagnoseTemporalTransport(s.address, s.tls).catch(() => undefined);
    throw new Error(`cannot connect to Temporal at ${s.address} over ${s.security}: ${(e as Error).message}${why ? `; ${why}` : ''}`, { cause: e });
  }
  // the active trace (the API request's span) goes with every workflow started or signalled into its headers
  return new Client({ connection, namespace: cfg.temporalNamespace, interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } });
}

function splitAddress(address: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(address) ?? /^([^:]+)(?::(\d+))?$/.exec(address);
  return m ? { host: m[1], port: Number(m[2] ?? 7233) } : { host: address, port: 7233 };
}

const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/**
 * Why a connection failed, in words, for the start-up error (the gRPC
 * client only says "Failed to connect before the deadline"): one TCP or TLS
 * handshake with the same settings, then the HTTP/2 preface, since a server
 * rejects a client certificate only after the client's side of a TLS 1.3
 * handshake has finished. Undefined when that works or says nothing useful.
 */
export async function diagnoseTemporalTransport(address: string, t: TLSConfig | undefined, timeoutMs = 3000): Promise<string | undefined> {
  const { host, port } = splitAddress(address);
  return new Promise<string | undefined>((resolve) => {
    let settled = false;
    let handshakeDone = false;
    const finish = (why: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(why);
    };
    const sock: net.Socket = t
      ? tls.connect({
          host, port, ALPNProtocols: ['h2'],
          ...(t.serverNameOverride ? { servername: t.serverNameOverride } : net.isIP(host) ? {} : { servername: host }),
          ...(t.serverRootCACertificate ? { ca: Buffer.from(t.serverRootCACertificate) } : {}),
          ...(t.clientCertPair ? { cert: Buffer.from(t.clientCertPair.crt), key: Buffer.from(t.clientCertPair.key) } : {}),
          checkServerIdentity: (_h, cert) => tls.checkServerIdentity(t.serverNameOverride ?? host, cert),
        }, () => { handshakeDone = true; sock.write(H2_PREFACE); })
      : net.connect({ host, port }, () => { handshakeDone = true; sock.write(H2_PREFACE); });
    const timer = setTimeout(() => finish(handshakeDone ? undefined : `no ${t ? 'TLS handshake' : 'TCP connection'} within ${timeoutMs} ms`), timeoutMs);
    sock.once('data', (d: Buffer) => {
      // 0x15 0x03 = a TLS alert record: a TLS server answering our plaintext.
      if (!t && d[0] === 0x15 && d[1] === 0x03) finish('the server speaks TLS: set TEMPORAL_TLS=true or TEMPORAL_TLS_CA (and the client certificate if it asks for one)');
      else finish(undefined);
    });
    sock.once('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? '';
      let why = `${handshakeDone ? 'after' : 'during'} the ${t ? 'TLS handshake' : 'connection'}: ${e.message.split('\n')[0]}`;
      if (/CERTIFICATE_REQUIRED|PEER_DID_NOT_RETURN|ALERT_BAD_CERTIFICATE|ALERT_UNKNOWN_CA|ALERT_CERTIFICATE_UNKNOWN|ALERT_HANDSHAKE_FAILURE/.test(code) && handshakeDone) {
        why = `the server refused the client certificate${t?.clientCertPair ? '' : ' (none was given: set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY)'} (${code})`;
      } else if (/ERR_TLS_CERT_ALTNAME_INVALID/.test(code)) {
        why = `the server certificate is not valid for "${t?.serverNameOverride ?? host}" (${e.message.split('\n')[0]}); TEMPORAL_TLS_SERVER_NAME sets the name to verify`;
      } else if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) {
        why = `the server certificate does not verify against ${t?.serverRootCACertificate ? 'TEMPORAL_TLS_CA' : 'the system CA roots (TEMPORAL_TLS_CA sets the CA)'} (${code}: ${e.message.split('\n')[0]})`;
      } else if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|UNKNOWN_PROTOCOL/.test(code)) {
        why = 'the server does not speak TLS (unset TEMPORAL_TLS*, or check TEMPORAL_ADDRESS)';
      }
      finish(why);
    });
    sock.once('close', () => finish(!handshakeDone ? undefined
      : !t ? 'the server closed the connection without answering HTTP/2: if it expects TLS, set TEMPORAL_TLS=true or TEMPORAL_TLS_CA'
      : t.clientCertPair ? 'the server closed the connection right after the TLS handshake: it probably does not accept the client certificate (TEMPORAL_TLS_CERT; is it issued by a CA the server trusts for clients?)'
      : 'the server closed the connection right after the TLS handshake: if it requires a client certificate, set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY'));
  });
}

/** Registers our search attributes on the namespace (no-op when present). */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<void> {
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((k) => !(k.name in (customAttributes ?? {})));
  if (missing.length === 0) return;
  const searchAttributes: Record<string, number> = {};
  for (const k of missing) searchAttributes[k.name] = 2; // INDEXED_VALUE_TYPE_KEYWORD
  try {
    await client.connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (e) {
    if (!/already exists/i.test(String((e as Error).message))) throw e;
  }
}

export function workflowUiLink(cfg: Config, workflowId: string): string {
  return `${cfg.temporalUiUrl}/namespaces/${encodeURIComponent(cfg.temporalNamespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** Dev server flags that pre-register the same attributes. */
export function devServerSearchAttributeArgs(): string[] {
  return SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]);
}
