import { defineConfig } from 'vitest/config';
import { isClosedTargetRejection } from '#core';

const include = [
  'apps/**/*.test.ts',
  'libs/**/*.test.ts',
  'test/**/*.test.ts',
  'scripts/**/*.test.ts',
  'bench/**/*.test.ts',
];
const disruptive = '**/*.disruptive.test.ts';

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // As in the apps (libs/core/rejections.ts): Playwright's own rejection for a target closed
    // mid-run, with no one left to observe it, is not a failure; every other one is.
    onUnhandledError: (error) => !isClosedTargetRejection(error),
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Integration suites share real Redis, ClickHouse and Kafka; two cores limit useful parallelism.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'main', include, exclude: [disruptive, '**/node_modules/**'], sequence: { groupOrder: 0 } },
      },
      // Suites that stop a shared service run last, one file at a time, after everything else finished.
      {
        extends: true,
        test: { name: 'disruptive', include: [disruptive], fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
