import { parseCheckResult, type CheckResult, type CheckResultInput } from '#domain';
import { describeAssertion, shownOutcome } from './assertions.ts';
import { createScrubber } from './secrets.ts';
import type { AssertionOutcome, ProbeContext, ProbeOutcome, RawArtifact, RunnableCheckType } from './types.ts';

/** What a probe found, before degraded/failed are decided and secrets scrubbed. */
export interface RawRun {
  responseTime: number;
  /** Why the run itself failed (connection refused, timeout, refused address…), if it did. */
  error?: string;
  /** As judged: actual values whole, scrubbed and cut by buildOutcome. */
  assertions: AssertionOutcome[];
  /** `user:password` strings the probe sent in Authorization headers (their base64 is scrubbed). */
  credentials?: string[];
  /** Fails the run without an assertion (URL: not 2xx; browser: document status ≥ 400). */
  implicitFailure?: string;
  statusCode?: number;
  statusText?: string;
  timings?: CheckResultInput['timings'];
  pages?: CheckResultInput['pages'];
  ssl?: CheckResultInput['ssl'];
  /** Files to keep with the run; text ones are scrubbed by buildOutcome. */
  artifacts?: RawArtifact[];
}

const round = (ms: number) => Math.max(0, Math.round(ms * 1000) / 1000);

/**
 * Turns a run into a v1 result: failed when the run errored, an assertion failed or it took longer
 * than maxResponseTime; degraded over degradedResponseTime. Every string is scrubbed of secrets.
 */
export function buildOutcome(checkType: RunnableCheckType, raw: RawRun, ctx: ProbeContext): ProbeOutcome {
  const scrub = createScrubber(ctx.secretValues, raw.credentials);
  const assertions = raw.assertions.map((outcome) => shownOutcome(outcome, scrub));
  const responseTime = round(raw.responseTime);
  const problems: string[] = [];
  if (raw.error) problems.push(raw.error);
  if (raw.implicitFailure) problems.push(raw.implicitFailure);
  for (const outcome of assertions.filter((a) => !a.passed))
    problems.push(
      `assertion failed: ${describeAssertion(outcome.assertion)} (${outcome.message ?? `actual ${outcome.actual}`})`,
    );
  if (!raw.error && responseTime > ctx.maxResponseTime)
    problems.push(`response time ${Math.round(responseTime)} ms is over maxResponseTime ${ctx.maxResponseTime} ms`);
  const hasFailures = problems.length > 0;

  const input: CheckResultInput = {
    id: ctx.resultId,
    accountId: ctx.accountId,
    checkId: ctx.checkId,
    checkType,
    startedAt: ctx.startedAt.toISOString(),
    runLocation: ctx.location,
    hasFailures,
    isDegraded: !hasFailures && responseTime > ctx.degradedResponseTime,
    responseTime,
    attempts: 1,
    ...(hasFailures ? { errorMessage: scrub(problems.join('; ')) } : {}),
    ...(raw.statusCode === undefined ? {} : { statusCode: raw.statusCode }),
    ...(raw.statusText === undefined ? {} : { statusText: scrub(raw.statusText) }),
    ...(raw.timings === undefined ? {} : { timings: roundTimings(raw.timings) }),
    ...(raw.pages === undefined ? {} : { pages: raw.pages.map((page) => ({ ...page, url: scrub(page.url) })) }),
    ...(raw.ssl === undefined ? {} : { ssl: { ...raw.ssl, domain: scrub(raw.ssl.domain) } }),
    // Stored with the result so the run view shows each outcome as judged, not guessed from the error text.
    ...(assertions.length === 0
      ? {}
      : {
          assertions: assertions.map(({ assertion, passed, actual, message }) => ({
            source: assertion.source,
            property: scrub(assertion.property),
            comparison: assertion.comparison,
            target: scrub(assertion.target),
            passed,
            actual,
            ...(message === undefined ? {} : { message }),
          })),
        }),
  };
  const artifacts = raw.artifacts?.map((artifact) => scrubbedArtifact(artifact, scrub));
  return { result: validated(input), assertions, ...(artifacts && artifacts.length > 0 ? { artifacts } : {}) };
}

/** Text artifacts (response bodies) go through the same scrubber as every other string; images and traces cannot. */
export function scrubbedArtifact(artifact: RawArtifact, scrub: (text: string) => string): RawArtifact {
  const named = artifact.name === undefined ? artifact : { ...artifact, name: scrub(artifact.name) };
  if (!/^(text\/|application\/(json|xml|javascript))/.test(artifact.contentType)) return named;
  return { ...named, body: Buffer.from(scrub(artifact.body.toString('utf8')), 'utf8') };
}

function roundTimings(timings: NonNullable<CheckResultInput['timings']>) {
  return Object.fromEntries(
    Object.entries(timings)
      .filter((entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]))
      .map(([key, value]) => [key, round(value)]),
  );
}

/** Every result leaves through the v1 contract; a probe bug shows here, not in the pipeline's DLQ. */
export function validated(input: CheckResultInput): CheckResult {
  const parsed = parseCheckResult(input);
  if (!parsed.ok) throw new Error(`probe built an invalid check result: ${parsed.message}`);
  return parsed.value;
}

export function errorText(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}
