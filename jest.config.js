/** Jest runs TypeScript through swc; one Temporal dev server, VIM simulator,
 *  worker and API are started once for the whole run (test/harness). */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 120000,
  maxWorkers: 1,
  globalSetup: '<rootDir>/test/harness/setup.ts',
  globalTeardown: '<rootDir>/test/harness/teardown.ts',
};
