import { randomUUID } from 'node:crypto';
import {
  checkResultSchema,
  heartbeatStatuses,
  type CheckResult,
  type CheckResultInput,
  type ResultCheckType,
} from '#domain';
import { seeded } from '#test-support';

/**
 * A generated, deterministic dataset for the analytics contract suite: one check of every type in
 * one account, plus a decoy account whose results reuse the same check ids (so a query that
 * forgot the account filter would count them). Runs span 2023-12-01 to 2024-02-10, crossing a
 * day, week, month and year boundary, with extra runs exactly on those boundaries.
 */
export interface Dataset {
  accountId: string;
  decoyAccountId: string;
  checks: Record<ResultCheckType, string>;
  /** The account's results, each once. */
  results: CheckResult[];
  /** What gets inserted: the results, some of them twice, and the decoy's. */
  inserts: CheckResult[];
}

export const SPAN = { from: Date.UTC(2023, 11, 1), to: Date.UTC(2024, 1, 10) };
export const LOCATIONS = ['eu-west-1', 'us-east-1', 'ap-south-1'];
const EDGES = [
  '2023-12-31T23:59:59.999Z',
  '2024-01-01T00:00:00.000Z',
  '2024-01-07T23:59:59.999Z',
  '2024-01-08T00:00:00.000Z',
  '2024-01-31T23:59:59.999Z',
  '2024-02-01T00:00:00.000Z',
];
const STEP_MS = 97 * 60_000;

export function generateDataset(seed = 42): Dataset {
  const rand = seeded(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const maybe = <T>(value: T, probability = 0.9): T | undefined => (rand() < probability ? value : undefined);
  // Whole and tenths values both occur, so percentiles meet ties and interpolation.
  const ms = (scale: number) => (rand() < 0.3 ? Math.round(rand() * scale) : Math.round(rand() * scale * 10) / 10);

  const accountId = randomUUID();
  const decoyAccountId = randomUUID();
  const types = ['API', 'URL', 'BROWSER', 'MULTI_STEP', 'PLAYWRIGHT', 'TCP', 'DNS', 'HEARTBEAT'] as const;
  const checks = Object.fromEntries(types.map((type) => [type, randomUUID()])) as Record<ResultCheckType, string>;

  function result(type: ResultCheckType, startedAt: string, account = accountId): CheckResult {
    const input: CheckResultInput = {
      id: randomUUID(),
      accountId: account,
      checkId: checks[type],
      checkType: type,
      startedAt,
      runLocation: pick(LOCATIONS),
      hasFailures: rand() < 0.12,
      responseTime: 20 + ms(900),
      attempts: rand() < 0.8 ? 1 : 1 + Math.floor(rand() * 3),
    };
    if (type === 'API' || type === 'URL') {
      input.statusCode = maybe(pick([200, 200, 200, 201, 404, 500]), 0.93);
      input.timings = {
        wait: maybe(ms(50)),
        dns: maybe(ms(40)),
        tcp: maybe(ms(60)),
        firstByte: maybe(ms(300)),
        download: maybe(ms(100)),
      };
    }
    if (type === 'TCP')
      input.timings = {
        total: maybe(ms(400), 0.8),
        dns: maybe(ms(40)),
        connection: maybe(ms(90)),
        data: maybe(ms(200)),
      };
    if (type === 'DNS') input.timings = { total: maybe(ms(200), 0.8) };
    if (type === 'BROWSER' || type === 'PLAYWRIGHT') {
      const count = Math.floor(rand() * 4); // 0 to 3 pages; a run with none still counts as a run
      input.pages = Array.from({ length: count }, (_, index) => ({
        index,
        url: `https://example.com/page-${index}`,
        TTFB: maybe(ms(400), 0.85),
        FCP: maybe(800 + ms(2000), 0.85),
        LCP: maybe(1200 + ms(3000), 0.85),
        CLS: maybe(Math.round(rand() * 400) / 1000, 0.85),
        TBT: maybe(ms(600), 0.85),
        consoleErrors: Math.floor(rand() * 3),
        networkErrors: rand() < 0.8 ? 0 : Math.floor(rand() * 5),
        userScriptErrors: rand() < 0.9 ? 0 : 1,
        documentErrors: rand() < 0.95 ? 0 : 2,
      }));
    }
    if (type === 'HEARTBEAT') {
      const status = pick(heartbeatStatuses);
      input.heartbeat = { status };
      input.hasFailures = status === 'FAILING' || status === 'LATE';
    }
    return checkResultSchema.parse(input);
  }

  const results: CheckResult[] = [];
  for (const type of types) {
    for (
      let at = SPAN.from + Math.floor(rand() * STEP_MS);
      at < SPAN.to;
      at += STEP_MS - 600_000 + Math.floor(rand() * 1_200_000)
    ) {
      results.push(result(type, new Date(at).toISOString()));
    }
    for (const edge of EDGES) results.push(result(type, edge));
  }
  const decoys = types.flatMap((type) =>
    Array.from({ length: 40 }, (_, i) =>
      result(type, new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(), decoyAccountId),
    ),
  );
  // Every seventh result is delivered twice: the store must count it once.
  const inserts = [...results, ...results.filter((_, i) => i % 7 === 0), ...decoys];
  return { accountId, decoyAccountId, checks, results, inserts };
}
