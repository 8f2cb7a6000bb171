/**
 * Masking of a package script's output (mgmt/script-mask.ts): every secret of
 * its input, also JSON-escaped, and, when the output was cut off, a secret's
 * beginning at its very end. Secrets are request data: the cost stays linear
 * in their size (a ratio in the same run, not a time).
 */
import { maskScriptOutput, scriptSecrets } from '../../mgmt/script-mask';

test('secrets of the input, as printed and JSON-escaped, are masked', () => {
  const secrets = scriptSecrets({ vim: { password: 'pa"ss-word-1' }, params: [{ api_key: 'k3y-value' }], name: 'not-secret' });
  expect(secrets).toEqual(['pa"ss-word-1', 'k3y-value']);
  expect(maskScriptOutput('login pa"ss-word-1 / {"p": "pa\\"ss-word-1"} k3y-value not-secret', secrets)).toBe('login **** / {"p": "****"} **** not-secret');
});

test('output cut off in the middle of a secret: its beginning (4 characters or more) is masked, a shorter one is kept', () => {
  expect(maskScriptOutput('token is hunter2-se', ['hunter2-secret'], { truncated: true })).toBe('token is ****');
  expect(maskScriptOutput('tail hun', ['hunter2-secret'], { truncated: true })).toBe('tail hun');
  expect(maskScriptOutput('tail hunt', ['hunter2-secret'], { truncated: true })).toBe('tail ****');
  // the longest beginning that the text ends with, also when a shorter one repeats inside the secret
  expect(maskScriptOutput('x abcabcab', ['abcabcabd'], { truncated: true })).toBe('x ****');
  expect(maskScriptOutput('hunter2-se', ['hunter2-secret'], { truncated: false })).toBe('hunter2-se');
});

test('a large secret costs about linearly: 16 times the size, far less than 256 times the work', () => {
  const cost = (size: number) => {
    // every beginning of the secret is a run of "a", and the output ends in a long run that is none of them
    const secret = `${'a'.repeat(size - 1)}b`;
    const text = `output ${'a'.repeat(size - 1)}c`;
    const t0 = process.cpuUsage();
    for (let i = 0; i < 3; i++) maskScriptOutput(text, [secret], { truncated: true });
    const used = process.cpuUsage(t0);
    return used.user + used.system;
  };
  cost(4096); // warm-up
  const ratio = cost(64 * 1024) / Math.max(cost(4096), 1);
  expect(ratio).toBeLessThan(64);
});
