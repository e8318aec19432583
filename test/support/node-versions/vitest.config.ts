import { defineConfig } from 'vitest/config';
import { isClosedTargetRejection } from '#core';

/**
 * What also runs on Node 22 and 24 (test/platform/node-versions.test.ts): every unit test beside
 * the code, the README walkthrough (`npm start`'s dist build, the CLI) and the distributed
 * deployment smoke test (two API replicas and a projector on PostgreSQL, Redis, Kafka, ClickHouse).
 */
export default defineConfig({
  root: new URL('../../..', import.meta.url).pathname,
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // As in the apps (libs/core/rejections.ts): Playwright's own rejection for a target closed
    // mid-run, with no one left to observe it, is not a failure; every other one is.
    onUnhandledError: (error) => !isClosedTargetRejection(error),
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    include: [
      'apps/**/*.test.ts',
      'libs/**/*.test.ts',
      'scripts/**/*.test.ts',
      'test/readme-walkthrough.test.ts',
      'test/deployment/three-process.int.test.ts',
    ],
    exclude: [
      'apps/**/*.int.test.ts',
      'libs/**/*.int.test.ts',
      'scripts/**/*.int.test.ts',
      '**/*.disruptive.test.ts',
      '**/node_modules/**',
    ],
  },
});
