/**
 * SSH execution layer for the Mgmt Drivers.
 *
 *   const hostKeys = new InMemoryHostKeyStore();            // or a persistent HostKeyStore
 *   const s = await connectSsh(
 *     { host: '10.0.0.5', username: 'ubuntu', password, hostKeyId: 'VDU1-0' },   // or privateKey
 *     { deadlineMs: 300_000, hostKeys, log: (m) => logger.info(m) });
 *   try {
 *     const r = await s.exec('systemctl is-active app', { timeoutMs: 10_000 });   // { code, stdout, stderr }
 *     await s.run('apt-get install -y app', { sudo: true, timeoutMs: 600_000 }); // throws SshCommandError unless exit 0
 *     await s.upload(Buffer.from(conf), '/etc/app.conf', { sudo: true, mode: 0o644 });
 *   } finally {
 *     await s.close();
 *   }
 *   // heal replaced VDU1-0: hostKeys.forget('VDU1-0') before connecting to the new VM.
 *
 * Every string this module hands out (results, errors, log lines) has the
 * target's password, passphrase, private key and ConnectOptions.secrets masked.
 */
export { connectSsh } from './connect';
export type { SshTarget, ConnectOptions } from './connect';
export { SshSession, shellQuote } from './session';
export type { ExecResult, ExecOptions, UploadOptions } from './session';
export { InMemoryHostKeyStore, hostKeyFingerprint } from './host-keys';
export type { HostKeyStore } from './host-keys';
export { parseConsoleHostKeys, CONSOLE_KEYS_BEGIN, CONSOLE_KEYS_END } from './console-host-keys';
export type { ConsoleHostKey } from './console-host-keys';
export { MASK as SECRET_MASK, redactSecrets } from '../common/secrets';
export {
  SshError, SshConnectError, SshAuthError, SshHostKeyMismatchError, SshTimeoutError,
  SshConnectionLostError, SshCommandError, SshUploadError, SshHostKeyUnverifiedError,
} from './errors';
