/**
 * A jest reporter that keeps each test file's duration: one JSON line per
 * file appended to TEST_TIMINGS_FILE (scripts/test.ts sets it and prints the
 * slowest files at the end of `npm test`). Without the variable it does
 * nothing. Plain JavaScript: jest loads reporters without transforming them.
 */
const fs = require('node:fs');
const path = require('node:path');

class TimingsReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.file = process.env.TEST_TIMINGS_FILE;
  }

  onTestResult(test, result) {
    if (!this.file) return;
    const { start, end } = result.perfStats;
    const line = {
      file: path.relative(this.rootDir, result.testFilePath),
      tier: test.context.config.displayName?.name ?? 'default',
      store: process.env.TEST_STORE || 'sqlite',
      seconds: start && end ? (end - start) / 1000 : 0,
      passed: result.numPassingTests,
      failed: result.numFailingTests + (result.testExecError ? 1 : 0),
      skipped: result.numPendingTests + result.numTodoTests,
    };
    fs.appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }
}

module.exports = TimingsReporter;
