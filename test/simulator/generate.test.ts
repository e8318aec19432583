import { describe, expect, it } from 'vitest';
import { applyCheckDefaults, checkTypes, parseCheckResult, type CheckResultInput } from '#domain';
import { createResultGenerator, model, type SimCheck } from '../../apps/simulator/src/generate.ts';
import { planChecks } from '../../apps/simulator/src/plan.ts';
import { createRng } from '../../apps/simulator/src/random.ts';
import { sampleChecks } from './checks.ts';

const START = Date.UTC(2025, 2, 1);

/** Every check runs from each of its locations, round after round, a frequency apart. */
function simulateRounds(checks: SimCheck[], rounds: number, seed = 'seed'): CheckResultInput[] {
  const generator = createResultGenerator(checks, seed);
  const results: CheckResultInput[] = [];
  for (let round = 0; round < rounds; round++) {
    checks.forEach((check, index) => {
      for (const location of check.locations) {
        results.push(generator.next({ check: index, location, startedAt: START + round * check.frequency * 60_000 }));
      }
    });
  }
  return results;
}

const share = (results: CheckResultInput[], predicate: (result: CheckResultInput) => boolean) =>
  results.filter(predicate).length / results.length;

describe('the result generator', () => {
  const checks = sampleChecks();
  const results = simulateRounds(checks, 400);

  it('produces only results the v1 contract accepts, for every type', () => {
    expect(new Set(results.map((result) => result.checkType))).toEqual(new Set(checkTypes));
    const invalid = results
      .map((result) => ({ result, parsed: parseCheckResult(result) }))
      .filter(({ parsed }) => !parsed.ok);
    expect(invalid.slice(0, 3)).toEqual([]);
    expect(results.length).toBeGreaterThan(20_000);
  });

  it('fills in the fields of each type, and only those', () => {
    for (const result of results) {
      const http = result.checkType === 'API' || result.checkType === 'URL';
      const browser = result.checkType === 'BROWSER' || result.checkType === 'PLAYWRIGHT';
      if (!http) expect(result.statusCode).toBeUndefined();
      if (http && !result.hasFailures) expect(result.statusCode).toBeLessThan(300);
      expect(result.pages !== undefined).toBe(browser);
      expect(result.heartbeat !== undefined).toBe(result.checkType === 'HEARTBEAT');
      if (result.hasFailures) expect(result.errorMessage).toBeTruthy();
      else expect(result.errorMessage).toBeUndefined();
    }
  });

  it('keeps timings consistent with the response time', () => {
    for (const result of results) {
      const t = result.timings;
      if (result.checkType === 'API' || result.checkType === 'URL') {
        const phases = (t?.wait ?? 0) + (t?.dns ?? 0) + (t?.tcp ?? 0) + (t?.firstByte ?? 0) + (t?.download ?? 0);
        expect([phases, t?.total]).toEqual([result.responseTime, result.responseTime]);
      }
      if (result.checkType === 'TCP')
        expect([(t?.dns ?? 0) + (t?.connection ?? 0) + (t?.data ?? 0), t?.total]).toEqual([
          result.responseTime,
          result.responseTime,
        ]);
      if (result.checkType === 'DNS') expect(t).toEqual({ total: result.responseTime });
      for (const page of result.pages ?? []) {
        expect(page.TTFB!).toBeLessThanOrEqual(page.FCP!);
        expect(page.FCP!).toBeLessThanOrEqual(page.LCP!);
        expect(page.LCP!).toBeLessThanOrEqual(result.responseTime);
      }
    }
  });

  it('marks a run degraded only when it passed and took longer than the check allows', () => {
    const byId = new Map(checks.map((check) => [check.id, check]));
    for (const result of results.filter((r) => r.isDegraded && r.checkType !== 'HEARTBEAT')) {
      expect(result.hasFailures).toBe(false);
      expect(result.responseTime).toBeGreaterThan(byId.get(result.checkId)!.degradedResponseTime);
    }
    for (const result of results.filter((r) => !r.hasFailures && r.checkType !== 'HEARTBEAT')) {
      expect(result.isDegraded).toBe(result.responseTime > byId.get(result.checkId)!.degradedResponseTime);
      expect(result.responseTime).toBeLessThanOrEqual(byId.get(result.checkId)!.maxResponseTime);
    }
  });

  it('fails a few percent of runs, mostly in bursts, and retries some of them', () => {
    const failed = share(results, (r) => r.hasFailures);
    expect(failed).toBeGreaterThan(0.01);
    expect(failed).toBeLessThan(0.08);
    const degraded = share(results, (r) => r.isDegraded === true);
    expect(degraded).toBeGreaterThan(0.005);
    expect(degraded).toBeLessThan(0.06);

    // A failure is far likelier right after another one on the same check and location.
    const previous = new Map<string, boolean>();
    let afterFailure = 0;
    let failedAfterFailure = 0;
    for (const result of results) {
      const key = `${result.checkId}/${result.runLocation}`;
      if (previous.get(key)) {
        afterFailure++;
        if (result.hasFailures) failedAfterFailure++;
      }
      previous.set(key, result.hasFailures);
    }
    expect(failedAfterFailure / afterFailure).toBeGreaterThan(0.5);

    const failures = results.filter((r) => r.hasFailures && r.checkType !== 'HEARTBEAT');
    const retried = share(failures, (r) => (r.attempts ?? 1) > 1);
    expect(retried).toBeGreaterThan(model.retriedFailure - 0.1);
    expect(retried).toBeLessThan(model.retriedFailure + 0.1);
    expect(share(results, (r) => !r.hasFailures && (r.attempts ?? 1) > 1)).toBeLessThan(0.02);
  });

  it('gives failed API runs error statuses and mostly 200 to the rest', () => {
    const api = results.filter((r) => r.checkType === 'API');
    expect(
      share(
        api.filter((r) => !r.hasFailures),
        (r) => r.statusCode === 200,
      ),
    ).toBeGreaterThan(0.75);
    const codes = api.filter((r) => r.hasFailures && r.statusCode !== undefined).map((r) => r.statusCode!);
    expect(codes.some((code) => code >= 500)).toBe(true);
    expect(codes.some((code) => code >= 400 && code < 500)).toBe(true);
  });

  it('reports heartbeats mostly RECEIVED, FAILING when an incident hits', () => {
    const beats = results.filter((r) => r.checkType === 'HEARTBEAT');
    expect(share(beats, (r) => r.heartbeat?.status === 'RECEIVED')).toBeGreaterThan(0.85);
    const statuses = new Set(beats.map((r) => r.heartbeat?.status));
    for (const status of ['RECEIVED', 'EARLY', 'GRACE', 'FAILING']) expect(statuses).toContain(status);
    for (const beat of beats)
      expect(beat.hasFailures).toBe(beat.heartbeat?.status === 'FAILING' || beat.heartbeat?.status === 'LATE');
  });

  it('gives each location its own latency and keeps response times log-normal around a median', () => {
    const api = checks.find((check) => check.checkType === 'API' && check.locations.length === 3)!;
    const medianAt = (location: string) => {
      const times = results
        .filter((r) => r.checkId === api.id && r.runLocation === location && !r.hasFailures && !r.isDegraded)
        .map((r) => r.responseTime)
        .sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)]!;
    };
    const medians = api.locations.map(medianAt);
    expect(Math.max(...medians) / Math.min(...medians)).toBeGreaterThan(1.05);
    const times = results
      .filter((r) => r.checkId === api.id && !r.hasFailures)
      .map((r) => r.responseTime)
      .sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    // Right-skewed: the 95th percentile is much further from the median than the 5th.
    expect(times[Math.floor(times.length * 0.95)]! - median).toBeGreaterThan(
      median - times[Math.floor(times.length * 0.05)]!,
    );
  });

  it('reports SSL now and then, only for checks with an SSL domain', () => {
    const withDomain = new Set(checks.filter((check) => check.sslCheckDomain).map((check) => check.id));
    const ssl = results.filter((r) => r.ssl);
    expect(ssl.every((r) => withDomain.has(r.checkId) && r.ssl?.domain === 'orders.example.com')).toBe(true);
    const rate = ssl.length / results.filter((r) => withDomain.has(r.checkId)).length;
    expect(rate).toBeGreaterThan(model.sslReading / 2);
    expect(rate).toBeLessThan(model.sslReading * 2);
  });

  it('is reproducible from its seed, and salts result ids with the check ids', () => {
    const few = checks.slice(0, 12);
    expect(simulateRounds(few, 30, 'a')).toEqual(simulateRounds(few, 30, 'a'));
    expect(simulateRounds(few, 30, 'b')).not.toEqual(simulateRounds(few, 30, 'a'));

    const rerun = few.map((check, index) => ({
      ...check,
      id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    }));
    const first = simulateRounds(few, 30, 'a');
    const second = simulateRounds(rerun, 30, 'a');
    const withoutIds = (list: CheckResultInput[]) => list.map(({ id: _id, checkId: _checkId, ...rest }) => rest);
    expect(withoutIds(second)).toEqual(withoutIds(first));
    const firstIds = new Set(first.map((r) => r.id));
    expect(second.some((r) => firstIds.has(r.id))).toBe(false);
    expect(new Set(first.map((r) => r.id)).size).toBe(first.length);
  });
});

describe('the check plan', () => {
  const plan = (count: number, types: Parameters<typeof planChecks>[1]['types'] = [], seed = 'plan') =>
    planChecks(createRng(seed), {
      count,
      types,
      locations: ['eu-west-1', 'us-east-1', 'ap-southeast-1', 'eu-central-1'],
      runTag: 'sim-test',
    });

  it('covers all eight types once there are eight checks, mostly API and URL after that', () => {
    expect(new Set(plan(8).map((check) => check.checkType))).toEqual(new Set(checkTypes));
    const many = plan(500);
    expect(many.filter((check) => check.checkType === 'API').length / many.length).toBeGreaterThan(0.2);
  });

  it('plans only the requested types, each at least once', () => {
    expect(new Set(plan(5, ['DNS', 'TCP']).map((check) => check.checkType))).toEqual(new Set(['DNS', 'TCP']));
  });

  it('plans checks the API accepts, with one to three of the locations and the run tag', () => {
    for (const check of plan(200)) {
      expect(() => applyCheckDefaults(check)).not.toThrow();
      expect(check.locations.length).toBeGreaterThanOrEqual(1);
      expect(check.locations.length).toBeLessThanOrEqual(check.checkType === 'HEARTBEAT' ? 1 : 3);
      expect(check.tags).toContain('sim-test');
    }
    expect(new Set(plan(50).map((check) => check.name)).size).toBe(50);
  });

  it('is reproducible from its seed', () => {
    expect(plan(20, [], 'x')).toEqual(plan(20, [], 'x'));
    expect(plan(20, [], 'x')).not.toEqual(plan(20, [], 'y'));
  });
});
