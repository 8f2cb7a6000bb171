/**
 * Per-server SSH host keys: one ed25519 key generated when the server is
 * created (and again at each rebuild: a new disk) and kept in its Nova record
 * (state.db), so a simulator restart presents the same key and a replacement
 * or rebuilt server a new one.
 */
import { createHash } from 'node:crypto';
import { utils } from 'ssh2';
import { newEd25519KeyPair } from '@nfv-orchestrator/lib/ssh-keys';

/** OpenSSH-format private key. */
export function generateHostKey(): string {
  return newEd25519KeyPair().private;
}

function parsed(privateKey: string) {
  const key = utils.parseKey(privateKey);
  if (key instanceof Error) throw key;
  return Array.isArray(key) ? key[0] : key;
}

/** "SHA256:..." as `ssh-keygen -lf` prints it (and ssh2's hostVerifier can compute). */
export function hostKeyFingerprint(privateKey: string): string {
  const blob = parsed(privateKey).getPublicSSH();
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The public half as one OpenSSH line (`ssh-ed25519 AAAA... root@host`), as cloud-init prints it on the console. */
export function hostPublicKeyLine(privateKey: string, comment: string): string {
  const key = parsed(privateKey);
  return `${key.type} ${key.getPublicSSH().toString('base64')} ${comment}`;
}
