/**
 * What keeping artifacts costs the runner: BROWSER runs against a loopback page, through the probe
 * and (when artifacts are on) the artifact store, exactly as the runner does per run. Four modes in
 * alternating rounds, so load on this shared machine hits all alike:
 *   failing, artifacts NEVER       (no trace recorded, nothing written)
 *   failing, artifacts ON_FAILURE  (trace recorded, screenshot taken, both written to the store)
 *   passing, artifacts NEVER / ON_FAILURE (the trace is recorded and dropped)
 * Target: failing runs with artifacts at least 0.8 of the rate without.
 *
 *   npm run bench -- artifacts [--runs 16] [--rounds 5] [--concurrency 4] [--store fs|s3]
 *     [--browser 'label=/path/to/chromium --switch …' …] [--failing-only]
 *
 * --store s3 writes to the loopback s3proxy of scripts/services.sh (a bucket of its own).
 * --browser (repeatable) compares browsers or switches: each is its own pool, and its modes join
 * the same alternating rounds, so the ratios of all of them come from one run. Without it, the
 * configured browser alone (CHROMIUM_HEADLESS_SHELL_PATH when installed, else CHROMIUM_PATH).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createArtifactStore, createFilesystemArtifactStore, keepArtifacts, type ArtifactStore } from '#artifacts';
import { createLogger } from '#core';
import { browserSchema } from '#domain';
import { createBrowserPool, createProber, type ManagedBrowserPool } from '#probes';
import { printMachine, printTable, writeResults } from './support/report.ts';
import { measureRounds, median, onOffRatios } from './support/rounds.ts';
import { round } from './support/stats.ts';
import { benchConfig } from './config.ts';

type Mode = { name: string; path: string; artifacts: 'NEVER' | 'ON_FAILURE'; variant?: Variant };
type Variant = { label: string; path: string; args: string[]; pool?: ManagedBrowserPool };
const BASE_MODES: Mode[] = [
  { name: 'failing, artifacts off', path: '/down', artifacts: 'NEVER' },
  { name: 'failing, artifacts on', path: '/down', artifacts: 'ON_FAILURE' },
  { name: 'passing, artifacts off', path: '/ok', artifacts: 'NEVER' },
  { name: 'passing, artifacts on', path: '/ok', artifacts: 'ON_FAILURE' },
];

// A page with some body to it, so the screenshot and the trace's snapshot are of a real size.
const PAGE = (status: string) =>
  `<!doctype html><html><body style="font:16px sans-serif"><h1>${status}</h1>${'<p>Order summary, line item, price, quantity and a little more text per row.</p>'.repeat(60)}</body></html>`;

async function s3Store(): Promise<ArtifactStore> {
  const {
    s3Endpoint: S3_ENDPOINT,
    s3AccessKeyId: S3_ACCESS_KEY_ID,
    s3SecretAccessKey: S3_SECRET_ACCESS_KEY,
  } = benchConfig;
  const bucket = `vigil-bench-${Date.now().toString(36)}`;
  const client = new S3Client({
    endpoint: S3_ENDPOINT,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return createArtifactStore({
    DATA_DIR: tmpdir(),
    ARTIFACTS_URL: `s3://${bucket}/bench`,
    AWS_ENDPOINT_URL_S3: S3_ENDPOINT,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: S3_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: S3_SECRET_ACCESS_KEY,
    VIGIL_ARTIFACT_RETENTION_DAYS: 30,
  });
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: '16' },
      rounds: { type: 'string', default: '5' },
      concurrency: { type: 'string', default: '4' },
      store: { type: 'string', default: 'fs' },
      browser: { type: 'string', multiple: true },
      'failing-only': { type: 'boolean', default: false },
    },
  });
  const runs = Number(values.runs);
  const rounds = Number(values.rounds);
  const concurrency = Number(values.concurrency);
  const variants = parseVariants(values.browser);
  const base = values['failing-only'] ? BASE_MODES.filter((mode) => mode.path === '/down') : BASE_MODES;
  const named = variants.length > 1;
  const MODES: Mode[] = variants.flatMap((variant) =>
    base.map((mode) => ({ ...mode, name: named ? `${variant.label}: ${mode.name}` : mode.name, variant })),
  );

  const server = createServer((req, res) => {
    const ok = req.url === '/ok';
    res.statusCode = ok ? 200 : 503;
    res.setHeader('content-type', 'text/html');
    res.end(PAGE(ok ? 'All fine' : 'Service unavailable'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'bench-artifacts-'));
  const store = values.store === 's3' ? await s3Store() : createFilesystemArtifactStore(dir);
  const logger = createLogger({ level: 'warn' });
  for (const variant of variants)
    variant.pool = createBrowserPool({
      executablePath: variant.path,
      extraArgs: variant.args,
      maxPages: concurrency,
      logger,
    });
  const prober = createProber({ logger });
  const accountId = randomUUID();
  const checkId = randomUUID();

  const oneRun = async (mode: Mode) => {
    const definition = {
      checkType: 'BROWSER' as const,
      browser: browserSchema.parse({ url: origin + mode.path, artifacts: mode.artifacts }),
    };
    const outcome = await prober.runProbe(definition, {
      resultId: randomUUID(),
      accountId,
      checkId,
      location: 'bench',
      startedAt: new Date(),
      degradedResponseTime: 10_000,
      maxResponseTime: 20_000,
      variables: {},
      secretValues: [],
      allowPrivate: true,
      timeoutMs: 30_000,
      browser: mode.variant!.pool!,
    });
    if (outcome.artifacts) await keepArtifacts(store, outcome.result, outcome.artifacts);
    return outcome.artifacts?.reduce((sum, artifact) => sum + artifact.body.length, 0) ?? 0;
  };
  printMachine();
  const figures = await measureRounds({ modes: MODES, runs, rounds, concurrency, oneRun });
  for (const variant of variants) await variant.pool!.close();
  await prober.close();
  await store.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });

  const nameOf = (variant: Variant, mode: string) => (named ? `${variant.label}: ${mode}` : mode);
  const ratiosOf = (variant: Variant, path: string) => {
    const kind = path === '/down' ? 'failing' : 'passing';
    return onOffRatios(figures, nameOf(variant, `${kind}, artifacts on`), nameOf(variant, `${kind}, artifacts off`));
  };
  const first = variants[0]!;
  printTable(
    `artifacts: BROWSER runs, ${runs} per mode per round, ${rounds} rounds, ${concurrency} at once, store ${values.store} (medians of the rounds)`,
    [
      'mode',
      'runs/min',
      'each round',
      'CPU ms per run',
      'KiB kept per run',
      'ratio on/off: rates, per round, CPU',
      ...(named ? [`rate ÷ ${first.label}'s, same mode`] : []),
      'target',
    ],
    MODES.map((mode) => {
      const entry = figures.get(mode.name)!;
      const r = ratiosOf(mode.variant!, mode.path);
      const againstFirst = median(entry.perMinute) / median(figures.get(nameOf(first, modeName(mode)))!.perMinute);
      return [
        mode.name,
        round(median(entry.perMinute)),
        entry.perMinute.map((x) => round(x)).join(' '),
        round(median(entry.cpuMsPerRun)),
        round(entry.bytesPerRun / 1024),
        mode.artifacts === 'NEVER' ? '' : [r.rate, r.perRound, r.cpu].map((x) => round(x, 2)).join(', '),
        ...(named ? [round(againstFirst, 2)] : []),
        mode.path === '/down' && mode.artifacts !== 'NEVER' ? TARGET : '',
      ];
    }),
  );
  const failing = Object.fromEntries(
    variants.map((variant) => {
      const r = ratiosOf(variant, '/down');
      return [
        variant.label,
        { rateRatio: round(r.rate, 2), perRoundRatio: round(r.perRound, 2), cpuRatio: round(r.cpu, 2) },
      ];
    }),
  );
  for (const [label, r] of Object.entries(failing))
    console.log(
      `target: ${label}: failing runs with artifacts ${r.rateRatio} of the rate without (per round ${r.perRoundRatio}, CPU ${r.cpuRatio}); ≥ ${TARGET}: ${r.rateRatio >= TARGET ? 'met' : 'missed'}`,
    );
  // Beside the issue's own ratio (same browser, on ÷ off): each browser's failing runs with artifacts
  // against the first browser's without, i.e. what a switch of browser does to the runner's rate.
  const across = variants.slice(1).map((variant) => {
    const on = figures.get(nameOf(variant, 'failing, artifacts on'))!;
    const off = figures.get(nameOf(first, 'failing, artifacts off'))!;
    const rate = median(on.perMinute) / median(off.perMinute);
    const perRound = median(on.perMinute.map((x, i) => x / off.perMinute[i]!));
    const cpu = median(off.cpuMsPerRun) / median(on.cpuMsPerRun);
    console.log(
      `across browsers: ${variant.label} failing with artifacts ÷ ${first.label} failing without: rates ${round(rate, 2)}, per round ${round(perRound, 2)}, CPU ${round(cpu, 2)} (not the issue's ratio)`,
    );
    return {
      label: variant.label,
      against: first.label,
      rateRatio: round(rate, 2),
      perRoundRatio: round(perRound, 2),
      cpuRatio: round(cpu, 2),
    };
  });
  writeResults('artifacts', {
    runs,
    rounds,
    concurrency,
    store: values.store,
    browsers: variants.map(({ label, path, args }) => ({ label, path, args })),
    runsPerMinute: Object.fromEntries([...figures].map(([name, f]) => [name, f.perMinute.map((x) => round(x))])),
    cpuMsPerRun: Object.fromEntries([...figures].map(([name, f]) => [name, f.cpuMsPerRun.map((x) => round(x))])),
    bytesPerRun: Object.fromEntries([...figures].map(([name, f]) => [name, f.bytesPerRun])),
    failing,
    across,
    ...(values['failing-only']
      ? {}
      : {
          passing: Object.fromEntries(
            variants.map((variant) => {
              const r = ratiosOf(variant, '/ok');
              return [
                variant.label,
                { rateRatio: round(r.rate, 2), perRoundRatio: round(r.perRound, 2), cpuRatio: round(r.cpu, 2) },
              ];
            }),
          ),
        }),
    target: TARGET,
  });
}

const TARGET = 0.8;

/** The mode's name without its browser's label. */
const modeName = (mode: Mode) =>
  `${mode.path === '/down' ? 'failing' : 'passing'}, artifacts ${mode.artifacts === 'NEVER' ? 'off' : 'on'}`;

/** `label=/path/to/chromium --switch …`; without any, the configured browser. */
function parseVariants(specs: string[] | undefined): Variant[] {
  if (!specs?.length) {
    const shell = benchConfig.chromiumHeadlessShellPath;
    const path = shell && existsSync(shell) ? shell : benchConfig.chromiumPath;
    return [{ label: basename(path), path, args: [] }];
  }
  return specs.map((spec) => {
    const [head, ...args] = spec.trim().split(/\s+/);
    const at = head!.indexOf('=');
    if (at <= 0) throw new Error(`--browser ${JSON.stringify(spec)}: expected label=/path/to/chromium [--switch …]`);
    return { label: head!.slice(0, at), path: head!.slice(at + 1), args };
  });
}
