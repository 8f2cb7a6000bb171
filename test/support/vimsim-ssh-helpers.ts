/**
 * SSH helpers for the simulator's SSH tests: a free port for the endpoints,
 * and a plain ssh2 client (connect, exec with optional stdin, SFTP upload).
 */
import { createHash } from 'node:crypto';
import { Client } from 'ssh2';

/** A port free on 127.0.0.1 right now (the endpoints bind it on 127.20.x.y). */
export { freePort } from '../harness/ports';

export interface Connected {
  client: Client;
  /** SHA256:... of the host key the server presented. */
  fingerprint: string;
}

export function sshConnect(host: string, port: number, username: string, auth: { password?: string; privateKey?: string }): Promise<Connected> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let fingerprint = '';
    client
      .on('ready', () => resolve({ client, fingerprint }))
      .on('error', reject)
      .connect({
        host,
        port,
        username,
        ...auth,
        readyTimeout: 5000,
        hostVerifier: (key: Buffer) => {
          fingerprint = `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
          return true;
        },
      });
  });
}

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command; stdin (if any) is written at once, then EOF unless keepOpen. */
export function sshExec(client: Client, command: string, opts: { stdin?: string; keepOpen?: boolean; giveUpAfterMs?: number } = {}): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    client.exec(command, (err, stream) => {
      if (err) return reject(err);
      let stdout = '';
      let stderr = '';
      let code: number | null = null;
      let timer: NodeJS.Timeout | undefined;
      if (opts.giveUpAfterMs) timer = setTimeout(() => stream.close(), opts.giveUpAfterMs);
      stream.on('data', (d: Buffer) => (stdout += d.toString()));
      stream.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      stream.on('exit', (c: number | null) => (code = c));
      stream.on('close', () => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      if (opts.stdin !== undefined) stream.write(opts.stdin);
      if (!opts.keepOpen) stream.end();
    });
  });
}

export function sftpUpload(client: Client, remotePath: string, data: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    client.sftp((err, sftp) => {
      if (err) return reject(err);
      sftp.writeFile(remotePath, data, (e) => {
        if (e) return reject(e);
        sftp.stat(remotePath, (e2, st) => {
          sftp.end();
          return e2 ? reject(e2) : resolve(st.size);
        });
      });
    });
  });
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
