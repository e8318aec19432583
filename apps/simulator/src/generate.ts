import type { CheckResultInput, CheckType } from '#domain';
import { failedResponseTime, typeDetails, typeModels, type FailureKind, type TypeModel } from './details.ts';
import { createRng, type Rng } from './random.ts';

/**
 * The result generator: given the registered checks and a seed, each call describes one run.
 * It is pure (no clock, no I/O): the same checks, seed and runs give the same results, which
 * is what makes --seed reproducible and the distributions testable.
 *
 * The model, per check:
 * - response times are log-normal around a per-check median, scaled per location and by a
 *   daily cycle, and kept well under the check's degradedResponseTime on a normal day;
 * - incidents: now and then a check goes down for a few consecutive runs, everywhere or in
 *   one location, failing in one way (a 503, a timeout, a missed heartbeat);
 * - slow spells: a few consecutive runs above degradedResponseTime, so degraded runs come in
 *   stretches like they do in production; past maxResponseTime a run times out;
 * - rare one-off failures outside incidents, some retried (attempts > 1);
 * - now and then an SSL reading, counting down to an expiry that most checks renew in time.
 */

/** A check as the generator needs it: what POST /v1/checks returned, plus the account. */
export interface SimCheck {
  id: string;
  accountId: string;
  name: string;
  checkType: CheckType;
  frequency: number;
  locations: readonly string[];
  degradedResponseTime: number;
  maxResponseTime: number;
  sslCheckDomain: string | null;
}

/** One run to describe: which check (its index), from where and when (ms since the epoch). */
export interface Run {
  check: number;
  location: string;
  startedAt: number;
}

export interface ResultGenerator {
  readonly checks: readonly SimCheck[];
  next(run: Run): CheckResultInput;
}

/** The knobs of the model, exported so the tests can state the bounds they expect. */
export const model = {
  /** Chance per run of a check that an incident starts, drawn per check within this range. */
  incidentRate: [0.002, 0.01] as const,
  /** Runs per location an incident lasts. */
  incidentRuns: [3, 8] as const,
  /** Share of runs inside an incident that fail (the rest get lucky). */
  incidentFailure: 0.92,
  /** Share of incidents confined to one location. */
  regional: 0.3,
  slowRate: [0.002, 0.008] as const,
  slowRuns: [2, 6] as const,
  /** One-off failures outside incidents. */
  sporadicFailure: 0.002,
  /** Failed runs that were retried, and passing runs that needed a retry. */
  retriedFailure: 0.4,
  retriedPass: 0.004,
  /** Runs of a check with an sslCheckDomain that report the certificate. */
  sslReading: 0.05,
};

const DAY = 86_400_000;
const pagePaths = ['/', '/login', '/search?q=shoes', '/product/42', '/cart', '/checkout', '/account'];

interface Episode {
  runsLeft: number;
  /** null: every location. */
  location: string | null;
  /** How an incident fails; a slow spell has none. */
  failure: FailureKind | null;
}

interface Profile {
  check: SimCheck;
  model: TypeModel;
  median: number;
  locationFactors: Map<string, number>;
  incidentRate: number;
  slowRate: number;
  host: string;
  pagePaths: string[];
  /** Days before expiry at which the certificate is renewed; negative: renewed only after it expired. */
  renewAtDays: number;
  sslExpiresAt: number | null;
  incident: Episode | null;
  slow: Episode | null;
}

export function createResultGenerator(checks: readonly SimCheck[], seed: string): ResultGenerator {
  const rng = createRng(`${seed}:results`);
  // Ids come from their own stream, salted with the check ids: a rerun with the same seed
  // against newly registered checks draws the same values but must not reuse result ids,
  // which are the de-duplication key.
  const ids = createRng(`${seed}:ids:${checks.map((check) => check.id).join(',')}`);
  const profiles = checks.map((check) => profileOf(rng, check));

  return {
    checks,
    next(run) {
      const profile = profiles[run.check];
      if (!profile) throw new Error(`no check at index ${run.check}`);
      const { check } = profile;
      startEpisodes(rng, profile, run.location);
      const incident = within(profile.incident, run.location);
      let failure: FailureKind | null = null;
      if (incident?.failure && rng.chance(model.incidentFailure)) failure = incident.failure;
      else if (rng.chance(model.sporadicFailure)) failure = rng.weighted(profile.model.failures);

      let normal =
        profile.median *
        (profile.locationFactors.get(run.location) ?? 1) *
        daily(run.startedAt) *
        rng.logNormal(1, profile.model.sigma);
      if (within(profile.slow, run.location) && check.checkType !== 'HEARTBEAT')
        normal = check.degradedResponseTime * rng.logNormal(1.3, 0.2);
      let responseTime = Math.round(failure ? failedResponseTime(rng, failure, normal, check.maxResponseTime) : normal);
      if (!failure && responseTime > check.maxResponseTime && check.checkType !== 'HEARTBEAT') {
        // The runner stops waiting at maxResponseTime: a slow run past it is a timeout.
        failure = 'timeout';
        responseTime = check.maxResponseTime + rng.int(0, 40);
      }
      const details = typeDetails(rng, {
        checkType: check.checkType,
        host: profile.host,
        pagePaths: profile.pagePaths,
        maxResponseTime: check.maxResponseTime,
        responseTime,
        failure,
      });
      const result: CheckResultInput = {
        id: ids.uuid(),
        accountId: check.accountId,
        checkId: check.id,
        checkType: check.checkType,
        startedAt: new Date(run.startedAt).toISOString(),
        runLocation: run.location,
        hasFailures: failure !== null,
        responseTime,
        attempts: attemptsOf(rng, failure, check.checkType),
        ...details,
        isDegraded: details.isDegraded ?? (failure === null && responseTime > check.degradedResponseTime),
      };
      const ssl = sslReading(rng, profile, run.startedAt);
      if (ssl) result.ssl = ssl;
      endEpisodes(profile);
      return result;
    },
  };
}

function profileOf(rng: Rng, check: SimCheck): Profile {
  const typeModel = typeModels[check.checkType];
  const locationFactors = new Map(
    check.locations.map((location) => [location, locationFactor(location) * rng.logNormal(1, 0.1)]),
  );
  // A quarter of the degraded threshold: normal runs stay under it even from a slow location.
  const median = Math.min(rng.between(typeModel.median[0], typeModel.median[1]), check.degradedResponseTime / 4);
  const pageCount =
    check.checkType === 'BROWSER' ? rng.int(1, 2) : check.checkType === 'PLAYWRIGHT' ? rng.int(1, 4) : 0;
  return {
    check,
    model: typeModel,
    median,
    locationFactors,
    incidentRate: rng.between(model.incidentRate[0], model.incidentRate[1]),
    slowRate: rng.between(model.slowRate[0], model.slowRate[1]),
    host: check.sslCheckDomain ?? `${slug(check.name)}.example.com`,
    pagePaths: ['/', ...rng.shuffled(pagePaths.slice(1)).slice(0, pageCount - 1)],
    renewAtDays: rng.weighted([
      [30, 60],
      [14, 30],
      [-3, 10],
    ]),
    sslExpiresAt: null,
    incident: null,
    slow: null,
  };
}

/** Each location has its own latency (distance to the target), the same for every check. */
function locationFactor(location: string): number {
  return createRng(`location:${location}`).between(0.8, 1.5);
}

/** Busier afternoons (UTC): about ±12% over the day. */
function daily(startedAt: number): number {
  const hours = (startedAt % DAY) / 3_600_000;
  return 1 + 0.12 * Math.sin((2 * Math.PI * (hours - 9)) / 24);
}

function startEpisodes(rng: Rng, profile: Profile, location: string): void {
  // Episodes are counted in runs of the check across its locations; dividing the start rate by
  // the location count keeps the share of affected runs the same for one location or three.
  const locations = Math.max(1, profile.check.locations.length);
  const scope = () => (locations > 1 && rng.chance(model.regional) ? location : null);
  if (!profile.incident && rng.chance(profile.incidentRate / locations)) {
    profile.incident = {
      runsLeft: rng.int(...model.incidentRuns) * locations,
      location: scope(),
      failure: rng.weighted(profile.model.failures),
    };
  }
  if (!profile.slow && rng.chance(profile.slowRate / locations)) {
    profile.slow = { runsLeft: rng.int(...model.slowRuns) * locations, location: scope(), failure: null };
  }
}

function endEpisodes(profile: Profile): void {
  if (profile.incident && --profile.incident.runsLeft <= 0) profile.incident = null;
  if (profile.slow && --profile.slow.runsLeft <= 0) profile.slow = null;
}

function within(episode: Episode | null, location: string): Episode | null {
  return episode && (episode.location === null || episode.location === location) ? episode : null;
}

function attemptsOf(rng: Rng, failure: FailureKind | null, checkType: CheckType): number {
  // A heartbeat is a ping that arrived or not; there is nothing to retry.
  if (checkType === 'HEARTBEAT') return 1;
  if (failure)
    return rng.chance(model.retriedFailure)
      ? rng.weighted([
          [2, 80],
          [3, 20],
        ])
      : 1;
  return rng.chance(model.retriedPass) ? 2 : 1;
}

function sslReading(rng: Rng, profile: Profile, startedAt: number): { daysRemaining: number; domain: string } | null {
  const domain = profile.check.sslCheckDomain;
  if (!domain || !rng.chance(model.sslReading)) return null;
  profile.sslExpiresAt ??= startedAt + rng.int(3, 365) * DAY;
  let daysRemaining = Math.floor((profile.sslExpiresAt - startedAt) / DAY);
  if (daysRemaining < profile.renewAtDays) {
    profile.sslExpiresAt = startedAt + 90 * DAY;
    daysRemaining = 90;
  }
  return { daysRemaining, domain };
}

function slug(name: string): string {
  return (name.split(' ')[0] ?? 'service').toLowerCase().replace(/[^a-z0-9-]/g, '') || 'service';
}
