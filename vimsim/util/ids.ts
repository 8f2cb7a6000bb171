/** Identifier helpers shaped like the ones OpenStack services hand out. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** Physical resource ids, stack ids, event ids: canonical UUIDs, as Heat/Nova/Neutron use. */
export function newUuid(): string {
  return randomUUID();
}

const SHORT_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Heat's 12-character lowercase short id, used for nested stack name suffixes
 * and AutoScalingGroup member names. Starts with a letter so it is always a
 * valid resource name and never looks like a ResourceGroup index.
 */
export function shortId(length = 12): string {
  const bytes = randomBytes(length);
  let out = SHORT_ID_ALPHABET[bytes[0] % 26];
  for (let i = 1; i < length; i++) out += SHORT_ID_ALPHABET[bytes[i] % SHORT_ID_ALPHABET.length];
  return out;
}

/**
 * Keystone ids are 32 hex characters. Deriving them from a stable seed keeps
 * project/user ids identical across restarts, so endpoint URLs stay valid.
 */
export function stableHexId(seed: string): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, 32);
}

/** A UUID derived from a seed (for ids of things the simulator does not own, e.g. external subnets). */
export function stableUuid(seed: string): string {
  const h = stableHexId(seed);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** Opaque token id in the style of a Fernet token (the client must not parse it). */
export function newTokenId(): string {
  return 'gAAAAA' + randomBytes(96).toString('base64url');
}

/** Neutron-style MAC address (OpenStack's default fa:16:3e prefix). */
export function newMacAddress(): string {
  const b = randomBytes(3);
  return ['fa', '16', '3e', ...Array.from(b, (x) => x.toString(16).padStart(2, '0'))].join(':');
}
