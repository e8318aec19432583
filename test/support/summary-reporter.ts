import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the run with one plain line, "N passed, N failed, N skipped", that CI systems read
 * regardless of the runner; vitest's own summary stays above it.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
      // A file that fails to load has no tests but is still a failure.
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) counts.failed += 1;
    }
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
