/** Host key pinning per VNFC: the first connection to a VNFC pins its host key
 *  fingerprint; later connections must present the same key. A heal that
 *  replaces the VNFC calls forget(id) so the new VM's key is learned. */
import crypto from 'node:crypto';

export interface HostKeyStore {
  get(id: string): string | undefined;
  set(id: string, fingerprint: string): void;
  forget(id: string): void;
}

export class InMemoryHostKeyStore implements HostKeyStore {
  private readonly keys = new Map<string, string>();
  get(id: string): string | undefined { return this.keys.get(id); }
  set(id: string, fingerprint: string): void { this.keys.set(id, fingerprint); }
  forget(id: string): void { this.keys.delete(id); }
}

/** OpenSSH-style fingerprint of a raw host key blob: `SHA256:<base64, no padding>`
 *  (what `ssh-keygen -lf` prints). */
export function hostKeyFingerprint(key: Buffer): string {
  return `SHA256:${crypto.createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}
