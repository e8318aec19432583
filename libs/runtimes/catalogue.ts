import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ValidationError } from '#core';

export const runtimeStages = ['ALPHA', 'BETA', 'CURRENT', 'DEPRECATED', 'REMOVED', 'STABLE'] as const;
export type RuntimeStage = (typeof runtimeStages)[number];

export const browserSupportSchema = z
  .object({
    chromium: z
      .enum(['SUPPORTED', 'UNSUPPORTED', 'UNVERIFIED'])
      .describe(
        "Whether this runtime's own Playwright can drive the Chromium installed on Vigil's runners (Debian's chromium). " +
          'UNVERIFIED: the runtime was never installed here (it is past its end of life).',
      ),
    chromiumVersion: z
      .string()
      .regex(/^\d+$/)
      .optional()
      .describe('The Chromium major version the answer was verified against'),
    reason: z.string().optional().describe('Why the runtime cannot drive Chromium, or why it was not tried'),
  })
  .strict()
  .meta({ id: 'RuntimeBrowserSupport' });
export type BrowserSupport = z.infer<typeof browserSupportSchema>;

export const runtimeSchema = z
  .object({
    name: z.string().regex(/^\d{4}\.\d{2}$/),
    multiStepSupport: z.boolean(),
    nodeJsVersion: z.string().regex(/^v\d+\.\d+\.\d+$/),
    dependencies: z.record(z.string(), z.string().regex(/^\d+\.\d+\.\d+$/, 'must be an exact version')),
    stage: z
      .enum(runtimeStages)
      .describe('Life stage today: REMOVED once the date is past runtimeEndOfLife, else the catalogued stage'),
    runtimeEndOfLife: z.iso.date(),
    description: z.string(),
    browserSupport: browserSupportSchema,
  })
  .describe('A runtime as catalogued in libs/runtimes/runtimes.json');
export type Runtime = z.infer<typeof runtimeSchema>;

/** The catalogue is a data file beside this module, validated when loaded, newest first. */
export function loadCatalogue(path: URL | string = new URL('./runtimes.json', import.meta.url)): Runtime[] {
  const runtimes = z.array(runtimeSchema).parse(JSON.parse(readFileSync(path, 'utf8')));
  return runtimes.sort((a, b) => b.name.localeCompare(a.name));
}

/** The day (UTC) as YYYY-MM-DD. */
function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * The runtime's life stage on a given day: REMOVED once the day is past its end of life (the end
 * of life day itself still counts), else the stage the catalogue gives it. Pure: the caller owns the clock.
 */
export function stageOn(runtime: Runtime, today: Date): RuntimeStage {
  return isoDay(today) > runtime.runtimeEndOfLife ? 'REMOVED' : runtime.stage;
}

/** Scripts of a runtime whose Playwright cannot drive our Chromium fail with this, never in another runtime. */
export function assertBrowserSupported(runtime: Runtime): void {
  const support = runtime.browserSupport;
  if (support.chromium === 'SUPPORTED') return;
  const why = support.reason ? `: ${support.reason}` : '';
  const verdict = support.chromium === 'UNSUPPORTED' ? 'cannot drive' : 'was never verified with';
  throw new ValidationError(
    `runtime ${runtime.name}: its Playwright (${runtime.dependencies.playwright ?? 'none'}) ${verdict} ` +
      `this deployment's Chromium${why}; choose another runtime (see GET /v1/runtimes)`,
  );
}

/**
 * The catalogue as seen on the clock's day: every runtime's stage follows the calendar. The clock
 * is the app's, so tests (and the API) decide what "today" is.
 */
export class RuntimeCatalogue {
  private readonly byName: Map<string, Runtime>;
  constructor(
    readonly catalogued: Runtime[],
    private readonly clock: () => Date,
  ) {
    this.byName = new Map(catalogued.map((runtime) => [runtime.name, runtime]));
  }

  private staged(runtime: Runtime, today: Date): Runtime {
    const stage = stageOn(runtime, today);
    return stage === runtime.stage ? runtime : { ...runtime, stage };
  }

  /** Every runtime, newest first, with today's stage. */
  get runtimes(): Runtime[] {
    const today = this.clock();
    return this.catalogued.map((runtime) => this.staged(runtime, today));
  }

  get(name: string): Runtime | undefined {
    const runtime = this.byName.get(name);
    return runtime && this.staged(runtime, this.clock());
  }

  /** The runtimes that are not REMOVED today: each of them is installable. */
  usable(): Runtime[] {
    return this.runtimes.filter((runtime) => runtime.stage !== 'REMOVED');
  }

  /**
   * The runtime new accounts get when they name none: today's CURRENT one. Once the calendar has
   * removed it and the catalogue names no successor yet, the newest usable release (not ALPHA or BETA,
   * unless nothing else is left), so account creation never depends on the catalogue being edited in time.
   */
  get current(): Runtime {
    const usable = this.usable();
    const current =
      usable.find((runtime) => runtime.stage === 'CURRENT') ??
      usable.find((runtime) => runtime.stage !== 'ALPHA' && runtime.stage !== 'BETA') ??
      usable[0];
    if (!current) throw new Error('every runtime of the catalogue is past its end of life');
    return current;
  }

  /** The runtime a check runs in: its own, else its group's, else its account's, else the current one. */
  effective(...runtimeIds: (string | null | undefined)[]): Runtime {
    const name = runtimeIds.find((id): id is string => typeof id === 'string' && id.length > 0);
    if (!name) return this.current;
    const runtime = this.get(name);
    if (!runtime) throw new ValidationError(`runtimeId: unknown runtime "${name}"; see GET /v1/runtimes`);
    return runtime;
  }

  /** Accounts, groups and checks may only name a runtime that exists and is not removed today. */
  assertUsable(name: string, field = 'runtimeId'): void {
    const runtime = this.get(name);
    if (!runtime) throw new ValidationError(`${field}: unknown runtime "${name}"; see GET /v1/runtimes`);
    if (runtime.stage === 'REMOVED')
      throw new ValidationError(
        `${field}: runtime "${name}" was removed (its end of life was ${runtime.runtimeEndOfLife}); ` +
          `use the current runtime "${this.current.name}"`,
      );
  }
}
