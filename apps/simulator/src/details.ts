import type { CheckResultInput, CheckType } from '#domain';
import type { Rng } from './random.ts';

/**
 * What each check type looks like: its typical response time, the ways it fails, and the
 * type-specific fields of a run (status codes, timings, pages, heartbeat status). Split from
 * generate.ts, which decides *whether* a run fails or is slow; this decides what that looks like.
 */

export interface TypeModel {
  /** Range from which each check draws its median response time, in ms. */
  median: readonly [number, number];
  /** Spread of one run around the median (sigma of the logarithm). */
  sigma: number;
  /** Failure kinds and their relative weights. */
  failures: readonly (readonly [FailureKind, number])[];
}

export type FailureKind =
  | 'server'
  | 'client'
  | 'timeout'
  | 'connection'
  | 'assertion'
  | 'nxdomain'
  | 'servfail'
  | 'step'
  | 'script'
  | 'network'
  | 'missed'
  | 'late';

export const typeModels: Readonly<Record<CheckType, TypeModel>> = {
  API: {
    median: [80, 600],
    sigma: 0.35,
    failures: [
      ['server', 55],
      ['client', 15],
      ['timeout', 12],
      ['connection', 8],
      ['assertion', 10],
    ],
  },
  URL: {
    median: [100, 900],
    sigma: 0.35,
    failures: [
      ['server', 60],
      ['client', 15],
      ['timeout', 15],
      ['connection', 10],
    ],
  },
  TCP: {
    median: [8, 120],
    sigma: 0.3,
    failures: [
      ['connection', 55],
      ['timeout', 30],
      ['assertion', 15],
    ],
  },
  DNS: {
    median: [4, 60],
    sigma: 0.4,
    failures: [
      ['servfail', 35],
      ['nxdomain', 15],
      ['timeout', 30],
      ['assertion', 20],
    ],
  },
  MULTI_STEP: {
    median: [400, 2500],
    sigma: 0.3,
    failures: [
      ['step', 70],
      ['timeout', 20],
      ['connection', 10],
    ],
  },
  BROWSER: {
    median: [1200, 4000],
    sigma: 0.25,
    failures: [
      ['script', 45],
      ['network', 30],
      ['timeout', 25],
    ],
  },
  PLAYWRIGHT: {
    median: [1800, 6000],
    sigma: 0.25,
    failures: [
      ['script', 55],
      ['network', 20],
      ['timeout', 25],
    ],
  },
  HEARTBEAT: {
    median: [0, 0],
    sigma: 0,
    failures: [
      ['missed', 85],
      ['late', 15],
    ],
  },
};

/** A failed run's response time, from the time a normal run would have taken. */
export function failedResponseTime(rng: Rng, kind: FailureKind, normal: number, maxResponseTime: number): number {
  // Runners give up at the check's maxResponseTime, so a timeout reports just over it.
  if (kind === 'timeout') return maxResponseTime + rng.int(0, 40);
  if (kind === 'connection' || kind === 'nxdomain' || kind === 'servfail') return normal * rng.between(0.05, 0.4);
  return normal * rng.between(0.6, 2);
}

/** What a run needs to know about its check to describe itself. */
export interface RunContext {
  checkType: CheckType;
  host: string;
  pagePaths: readonly string[];
  maxResponseTime: number;
  responseTime: number;
  failure: FailureKind | null;
}

type Details = Pick<
  CheckResultInput,
  'statusCode' | 'statusText' | 'timings' | 'pages' | 'heartbeat' | 'errorMessage' | 'isDegraded'
>;

export function typeDetails(rng: Rng, run: RunContext): Details {
  switch (run.checkType) {
    case 'API':
    case 'URL':
      return httpDetails(rng, run);
    case 'TCP':
      return tcpDetails(rng, run);
    case 'DNS':
      return { timings: { total: run.responseTime }, ...(run.failure ? { errorMessage: dnsError(run) } : {}) };
    case 'MULTI_STEP':
      return run.failure ? { errorMessage: multiStepError(rng, run) } : {};
    case 'BROWSER':
    case 'PLAYWRIGHT':
      return browserDetails(rng, run);
    case 'HEARTBEAT':
      return heartbeatDetails(rng, run);
  }
}

const statusTexts: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

function httpDetails(rng: Rng, run: RunContext): Details {
  const total = run.responseTime;
  const dns = Math.round(total * rng.between(0.01, 0.06));
  if (run.failure === 'timeout' || run.failure === 'connection') {
    // No response came back: only the phases before it have timings, and no status code.
    const errorMessage =
      run.failure === 'timeout'
        ? `Timeout: no response from ${run.host} within ${run.maxResponseTime} ms`
        : rng.pick([
            `connect ECONNREFUSED ${run.host}:443`,
            `getaddrinfo ENOTFOUND ${run.host}`,
            'socket hang up',
            'read ECONNRESET',
          ]);
    return { timings: { dns, tcp: Math.max(0, total - dns), total }, errorMessage };
  }
  const tcp = Math.round(total * rng.between(0.03, 0.1));
  const wait = Math.round(total * rng.between(0, 0.02));
  const download = Math.round(total * rng.between(0.03, 0.15));
  // The shares above sum to at most a third, so the first byte takes the rest and the phases add up to the total.
  const timings = { wait, dns, tcp, firstByte: total - wait - dns - tcp - download, download, total };
  let statusCode: number;
  if (run.failure === 'server')
    statusCode = rng.weighted([
      [500, 35],
      [502, 25],
      [503, 30],
      [504, 10],
    ]);
  else if (run.failure === 'client')
    statusCode = rng.weighted([
      [401, 20],
      [403, 15],
      [404, 45],
      [429, 20],
    ]);
  else if (run.checkType === 'URL') statusCode = 200;
  else
    statusCode = rng.weighted([
      [200, 85],
      [201, 8],
      [204, 5],
      [202, 2],
    ]);
  const details: Details = { statusCode, statusText: statusTexts[statusCode] ?? '', timings };
  if (run.failure === 'assertion')
    details.errorMessage = rng.pick([
      'Assertion failed: JSON body $.status equals "ok", received "degraded"',
      'Assertion failed: header content-type contains application/json',
    ]);
  else if (run.failure) details.errorMessage = `Assertion failed: status code equals 200, received ${statusCode}`;
  return details;
}

function tcpDetails(rng: Rng, run: RunContext): Details {
  const total = run.responseTime;
  const dns = Math.round(total * rng.between(0.05, 0.2));
  if (run.failure === 'connection' || run.failure === 'timeout') {
    const port = rng.pick([5432, 6379, 9092, 443]);
    const errorMessage =
      run.failure === 'timeout' ? `connect ETIMEDOUT ${run.host}:${port}` : `connect ECONNREFUSED ${run.host}:${port}`;
    return { timings: { dns, connection: total - dns, total }, errorMessage };
  }
  const connection = Math.round(total * rng.between(0.4, 0.7));
  const timings = { dns, connection, data: total - dns - connection, total };
  return run.failure ? { timings, errorMessage: 'Assertion failed: response data contains "+PONG"' } : { timings };
}

function dnsError(run: RunContext): string {
  if (run.failure === 'nxdomain') return `queryA ENOTFOUND ${run.host} (NXDOMAIN)`;
  if (run.failure === 'servfail') return `queryA ESERVFAIL ${run.host} (SERVFAIL)`;
  if (run.failure === 'timeout') return `queryA ETIMEOUT ${run.host}: no answer within ${run.maxResponseTime} ms`;
  return `Assertion failed: A record of ${run.host} equals 203.0.113.10`;
}

function multiStepError(rng: Rng, run: RunContext): string {
  const steps = rng.int(2, 6);
  const step = rng.int(1, steps);
  if (run.failure === 'timeout') return `Step ${step} of ${steps} timed out after ${run.maxResponseTime} ms`;
  if (run.failure === 'connection') return `Step ${step} of ${steps}: connect ECONNREFUSED ${run.host}:443`;
  return `Step ${step} of ${steps} failed: expected status 200, received ${rng.pick([500, 502, 503, 404])}`;
}

function browserDetails(rng: Rng, run: RunContext): Details {
  // A failing script stops on the page where it failed; later pages never load.
  const reached = run.failure ? rng.int(1, run.pagePaths.length) : run.pagePaths.length;
  const budget = run.responseTime / run.pagePaths.length;
  const pages = run.pagePaths.slice(0, reached).map((path, index) => {
    const failedHere = run.failure !== null && index === reached - 1;
    const LCP = Math.round(budget * rng.between(0.45, 0.8));
    const FCP = Math.round(LCP * rng.between(0.5, 0.9));
    const TTFB = Math.round(FCP * rng.between(0.15, 0.4));
    return {
      index,
      url: `https://${run.host}${path}`,
      TTFB,
      FCP,
      LCP,
      CLS: Math.round(Math.min(1, rng.logNormal(0.03, 1)) * 1000) / 1000,
      TBT: Math.round(rng.logNormal(120, 0.8)),
      consoleErrors: rng.chance(0.08) ? rng.int(1, 3) : 0,
      networkErrors: failedHere && run.failure === 'network' ? rng.int(1, 4) : rng.chance(0.02) ? 1 : 0,
      userScriptErrors: failedHere && run.failure === 'script' ? 1 : 0,
      documentErrors: failedHere && run.failure === 'network' && rng.chance(0.3) ? 1 : 0,
    };
  });
  if (!run.failure) return { pages };
  const errorMessage =
    run.failure === 'timeout'
      ? `TimeoutError: page.goto: Timeout ${run.maxResponseTime}ms exceeded`
      : run.failure === 'network'
        ? `page.goto: net::ERR_CONNECTION_RESET at https://${run.host}${run.pagePaths[reached - 1] ?? '/'}`
        : rng.pick([
            "Error: expect(locator).toBeVisible() failed: locator('#checkout') not found",
            'TimeoutError: locator.click: Timeout 30000ms exceeded',
            'Error: expect(page).toHaveTitle(expected) failed',
          ]);
  return { pages, errorMessage };
}

function heartbeatDetails(rng: Rng, run: RunContext): Details {
  if (run.failure === 'missed')
    return { heartbeat: { status: 'FAILING' }, errorMessage: 'No ping received within the period and grace time' };
  if (run.failure === 'late')
    return { heartbeat: { status: 'LATE' }, errorMessage: 'Ping arrived after the grace time' };
  const status = rng.weighted([
    ['RECEIVED', 94],
    ['EARLY', 3],
    ['GRACE', 3],
  ] as const);
  // A ping inside the grace time is on the edge of failing, so it counts as degraded.
  return { heartbeat: { status }, isDegraded: status === 'GRACE' };
}
