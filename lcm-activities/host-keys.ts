/**
 * The SSH layer's HostKeyStore over the database's pins (store/repos/host-keys.ts).
 * The SSH layer asks synchronously, in the middle of a key exchange: the pin
 * of the VNFC is read before connecting, and a new pin is written in the
 * background (a lost write only means the next connection checks the key
 * against the console again).
 */
import type { Store } from '../store';
import { forgetHostKeys, pinHostKey, pinnedHostKey } from '../store/repos/host-keys';
import type { HostKeyStore } from '../ssh';

export async function dbHostKeyStore(db: Store, vnfcId: string, warn: (m: string) => void): Promise<HostKeyStore> {
  const pins = new Map<string, string>();
  const pinned = await pinnedHostKey(db, vnfcId);
  if (pinned !== undefined) pins.set(vnfcId, pinned);
  const persist = (what: string, write: Promise<void>) => { write.catch((e: Error) => warn(`could not ${what} the SSH host key pin of ${vnfcId}: ${e.message}`)); };
  return {
    get: (id) => pins.get(id),
    set: (id, fingerprint) => { pins.set(id, fingerprint); persist('write', pinHostKey(db, id, fingerprint)); },
    forget: (id) => { pins.delete(id); persist('remove', forgetHostKeys(db, [id])); },
  };
}
