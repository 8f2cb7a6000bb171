/**
 * ssh2 1.17 generates about one ed25519 pair in 256 that its own parser (and
 * OpenSSH) rejects: a Magnum cluster given one failed its create ("its SSH key
 * cannot be read"). No pair the product generates may be one of them.
 */
import { utils } from 'ssh2';
import { newEd25519KeyPair } from '@nfv-orchestrator/lib/ssh-keys';
import { generateHostKey, hostKeyFingerprint } from '@nfv-orchestrator/vimsim/ssh/hostkey';

const unreadable = (key: string) => utils.parseKey(key) instanceof Error;

test('every generated pair parses, private and public half (2,000 raw ssh2 pairs would hold ~8 that do not)', () => {
  const pairs = Array.from({ length: 2000 }, () => newEd25519KeyPair('magnum-x'));
  expect(pairs.filter((p) => unreadable(p.private) || unreadable(p.public))).toEqual([]);
  expect(pairs[0].public).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43} magnum-x$/); // 32-byte key
});

test('the simulator\'s host keys come from the same generator', () => {
  const keys = Array.from({ length: 300 }, generateHostKey);
  expect(keys.filter(unreadable)).toEqual([]);
  expect(hostKeyFingerprint(keys[0])).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  expect(() => hostKeyFingerprint('not a key')).toThrow();
});
