import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Integration suites share real Redis, ClickHouse and Kafka; two cores limit useful parallelism.
    maxWorkers: 2,
    include: ['apps/**/*.test.ts', 'libs/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
  },
});
