import { randomUUID } from 'node:crypto';
import { checkResultSchema, type CheckResult, type CheckResultInput } from '#domain';

/**
 * A valid, parsed check result for tests and benchmarks: an API run unless overridden. Overrides
 * go through the schema, so a fixture can never be something the ingestor would refuse.
 */
export function sampleCheckResult(overrides: Partial<CheckResultInput> = {}): CheckResult {
  return checkResultSchema.parse({
    id: randomUUID(),
    accountId: randomUUID(),
    checkId: randomUUID(),
    checkType: 'API',
    startedAt: new Date().toISOString(),
    runLocation: 'eu-west-1',
    hasFailures: false,
    responseTime: 120,
    ...overrides,
  });
}
