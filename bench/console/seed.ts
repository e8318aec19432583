import { seeded } from '../support/stats.ts';
import { client, createChecks, type Client } from '../support/vigil.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** The ingest route takes at most 10,000 results per request. */
const BATCH = 10_000;

interface ResultRow {
  id: string;
  checkId: string;
  checkType: 'API';
  startedAt: string;
  runLocation: string;
  hasFailures: boolean;
  isDegraded: boolean;
  responseTime: number;
  statusCode: number;
  timings: { dns: number; tcp: number; firstByte: number; download: number };
  errorMessage?: string;
}

/** A v4-shaped uuid from the seeded generator, so every run of the bench sends the same data. */
function uuid(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = '89ab'[Math.floor(random() * 4)]!;
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** A plausible API run: log-normal-ish response times around 120 ms, 0.5 % failures, two locations. */
function result(random: () => number, checkId: string, at: number, index: number): ResultRow {
  const base = 60 + 120 * -Math.log(1 - random() * 0.999) * 0.5;
  const failed = random() < 0.005;
  const responseTime = Math.round(base * 1000) / 1000;
  const dns = Math.round(responseTime * 0.05 * 1000) / 1000;
  const tcp = Math.round(responseTime * 0.1 * 1000) / 1000;
  const download = Math.round(responseTime * 0.15 * 1000) / 1000;
  return {
    id: uuid(random),
    checkId,
    checkType: 'API',
    startedAt: new Date(at).toISOString(),
    runLocation: index % 2 === 0 ? 'eu-west-1' : 'us-east-1',
    hasFailures: failed,
    isDegraded: !failed && responseTime > 400,
    responseTime,
    statusCode: failed ? 503 : 200,
    timings: { dns, tcp, firstByte: Math.round((responseTime - dns - tcp - download) * 1000) / 1000, download },
    ...(failed ? { errorMessage: 'assertion failed: STATUS_CODE EQUALS 200 (actual 503)' } : {}),
  };
}

async function ingest(url: string, key: string, accountId: string, rows: ResultRow[], batch = BATCH): Promise<void> {
  const sender: Client = client(url, key, accountId);
  for (let i = 0; i < rows.length; i += batch) {
    const answer = await sender.request<{ accepted: number; rejected: unknown[] }>(
      'POST',
      '/v1/check-results',
      rows.slice(i, i + batch),
    );
    if (answer.status !== 202 || answer.body.rejected.length > 0)
      throw new Error(`ingest failed: ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
  }
}

/** One check with a result every minute for `days` days, ending now; returns its id. */
export async function seedDenseCheck(
  url: string,
  owner: Client,
  key: string,
  accountId: string,
  days: number,
): Promise<{ checkId: string; runs: number }> {
  const created = await owner.request<{ id: string }>('POST', '/v1/checks', {
    name: 'Checkout API (30 days of 1-minute runs)',
    checkType: 'API',
    frequency: 1,
    locations: ['eu-west-1', 'us-east-1'],
  });
  if (created.status !== 201) throw new Error(`check creation failed: ${created.status}`);
  const random = seeded(15);
  const end = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS;
  const runs = days * 24 * 60;
  const rows = Array.from({ length: runs }, (_, i) => result(random, created.body.id, end - (runs - i) * MINUTE_MS, i));
  await ingest(url, key, accountId, rows);
  return { checkId: created.body.id, runs };
}

/** `count` checks, each with one run per hour over the last day (statuses, availability and sparklines). */
export async function seedManyChecks(
  url: string,
  owner: Client,
  key: string,
  accountId: string,
  count: number,
): Promise<string[]> {
  const ids = await createChecks(owner, count, ['eu-west-1']);
  const random = seeded(1000);
  const end = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS;
  const rows = ids.flatMap((id) =>
    Array.from({ length: 24 }, (_, h) => result(random, id, end - (24 - h) * HOUR_MS, 0)),
  );
  // Many checks per request cost the alerter and status read model one state each: smaller requests.
  await ingest(url, key, accountId, rows, 1000);
  return ids;
}
