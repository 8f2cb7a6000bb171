/** Pure helpers of the SSH layer (no sshd). */
import { hostKeyFingerprint, InMemoryHostKeyStore, redactSecrets, SECRET_MASK, shellQuote } from '../../ssh';
import { execFileSync } from 'node:child_process';

test('redactSecrets masks every occurrence, longest secret first', () => {
  expect(redactSecrets('pw=abc123; again abc123', ['abc123'])).toBe(`pw=${SECRET_MASK}; again ${SECRET_MASK}`);
  expect(redactSecrets('token abc123-long', ['abc123', 'abc123-long'])).toBe(`token ${SECRET_MASK}`);
  expect(redactSecrets('a.b*c(d) [x]', ['b*c(d)'])).toBe(`a.${SECRET_MASK} [x]`);
  expect(redactSecrets('nothing here', ['', undefined, 'zzz'])).toBe('nothing here');
});

test('shellQuote survives sh', () => {
  const nasty = `it's "$HOME" \`id\` $(id) \\ ; | & \n end`;
  expect(execFileSync('sh', ['-c', `printf '%s' ${shellQuote(nasty)}`]).toString()).toBe(nasty);
});

test('host key fingerprints look like ssh-keygen -l; the in-memory store pins and forgets', () => {
  const blob = Buffer.from('AAAAC3NzaC1lZDI1NTE5AAAAIOZ3Hgzj1QHj6G3b1wJ7d0aS8nJ8OZV8t5xWcO3Jmz5c', 'base64');
  expect(hostKeyFingerprint(blob)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  const store = new InMemoryHostKeyStore();
  expect(store.get('VDU1-0')).toBeUndefined();
  store.set('VDU1-0', 'SHA256:x');
  expect(store.get('VDU1-0')).toBe('SHA256:x');
  store.forget('VDU1-0');
  expect(store.get('VDU1-0')).toBeUndefined();
});
