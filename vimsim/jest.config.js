/** The simulator's own tests, alone: `npm test -w @nfv-orchestrator/vimsim`. The product's `npm test` runs them in its unit and component tiers. */
module.exports = {
  testEnvironment: 'node',
  testTimeout: 60000,
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
