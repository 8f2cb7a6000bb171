/**
 * What only a file of the disruptive tier may do to the shared harness, because it reaches every file
 * running beside it: kill or restart the product's worker, inject faults into the shared simulator.
 * e2e files run two at a time (docs/testing.md).
 */
import path from 'node:path';

export function onlyInDisruptiveTier(what: string): void {
  const testPath = (globalThis as { expect?: { getState(): { testPath?: string } } }).expect?.getState().testPath;
  if (testPath && !testPath.includes(`${path.sep}test${path.sep}disruptive${path.sep}`)) {
    throw new Error(`${path.basename(testPath)}: ${what} reaches every test file running beside this one: such a test belongs in test/disruptive`);
  }
}
