/** ssh2 sometimes generates ed25519 keys its own parser rejects; the simulator must never keep one. */
import { utils } from 'ssh2';
import { generateHostKey, isUsableHostKey } from '../vimsim/ssh/hostkey';

test('every generated host key parses (1 in ~200 raw ssh2 keys does not)', () => {
  const keys = Array.from({ length: 1000 }, generateHostKey);
  expect(keys.filter((k) => utils.parseKey(k) instanceof Error)).toEqual([]);
  expect(isUsableHostKey('not a key')).toBe(false);
  expect(isUsableHostKey(keys[0])).toBe(true);
});
