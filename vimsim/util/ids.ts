/** Identifiers shaped like the ones OpenStack services hand out. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export function newUuid(): string {
  return randomUUID();
}

/** A UUID derived from a seed: seeded records keep their ids across restarts and data dirs. */
export function stableUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Neutron-style MAC address (OpenStack's default fa:16:3e prefix). */
export function newMacAddress(): string {
  const b = randomBytes(3);
  return ['fa', '16', '3e', ...Array.from(b, (x) => x.toString(16).padStart(2, '0'))].join(':');
}

/** Nova's request ids. */
export function requestId(): string {
  return `req-${randomUUID()}`;
}
