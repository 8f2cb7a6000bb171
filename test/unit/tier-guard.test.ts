/** Killing the shared worker or faulting the shared simulator is refused outside test/disruptive (docs/testing.md). */
import { onlyInDisruptiveTier } from '../support/tier-guard';

test('refused from a file of another tier, naming the file and where such a test belongs', () => {
  expect(() => onlyInDisruptiveTier('killing the worker')).toThrow('tier-guard.test.ts: killing the worker reaches every test file running beside this one: such a test belongs in test/disruptive');
});

test('allowed from a file of test/disruptive', () => {
  const state = expect.getState();
  expect.setState({ testPath: state.testPath!.replace('/test/unit/', '/test/disruptive/') });
  try {
    expect(() => onlyInDisruptiveTier('killing the worker')).not.toThrow();
  } finally {
    expect.setState({ testPath: state.testPath });
  }
});
