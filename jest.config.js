/**
 * The test tiers (docs/testing.md), as jest projects; TypeScript runs through swc.
 *   unit        no server or process of any kind (test/harness/no-servers.ts refuses them)
 *   component   servers of its own: sshd, PostgreSQL, kube-apiserver, EM, an in-process simulator
 *   e2e         the shared harness (test/harness): one Temporal, Keystone, Heat, simulator, worker, API
 *   disruptive  the shared harness, changed for everyone while it runs (worker kills and restarts,
 *               cloud-wide faults, whole-product start/stop, multi-host, TLS): last and alone
 * The simulator's own tests (vimsim/test/unit, vimsim/test/component) run in the unit and
 * component tiers; `npm test -w @nfv-orchestrator/vimsim` runs them alone (vimsim/jest.config.js).
 * `npm test` (scripts/test.ts) runs them in that order, starting the harness once for e2e and
 * disruptive; a plain `npx jest <file>` starts it through globalSetup when the file needs it.
 */
const base = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
};

const withHarness = {
  ...base,
  globalSetup: '<rootDir>/test/harness/setup.ts',
  globalTeardown: '<rootDir>/test/harness/teardown.ts',
  testEnvironment: '<rootDir>/test/harness/leak-check-environment.ts',
};

module.exports = {
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/test/harness/timings-reporter.js'],
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/vimsim/test/unit/**/*.test.ts'], setupFiles: ['<rootDir>/test/harness/no-servers.ts'] },
    { ...base, displayName: 'component', testMatch: ['<rootDir>/test/component/**/*.test.ts', '<rootDir>/vimsim/test/component/**/*.test.ts'], testEnvironment: '<rootDir>/test/harness/leak-check-environment.ts' },
    { ...withHarness, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    { ...withHarness, displayName: 'disruptive', testMatch: ['<rootDir>/test/disruptive/**/*.test.ts'] },
  ],
};
