import type {
  ApiRequest,
  ArtifactKind,
  Assertion,
  BrowserDefinition,
  CheckResult,
  DnsRequest,
  CheckResultInput,
  RetryStrategy,
  ScriptFile,
  TcpRequest,
  UrlRequest,
} from '#domain';
import type { BrowserContext } from 'playwright-core';

/** What one run executes: the definition of a managed check, by type. */
export type RunnableDefinition =
  | { checkType: 'API'; request: ApiRequest }
  | { checkType: 'URL'; request: UrlRequest }
  | { checkType: 'TCP'; request: TcpRequest }
  | { checkType: 'DNS'; request: DnsRequest }
  | { checkType: 'BROWSER'; browser: BrowserDefinition }
  | ScriptDefinition;

/**
 * A script check's run: MULTI_STEP and PLAYWRIGHT, and a BROWSER check that carries a script
 * (it runs like PLAYWRIGHT). One of script and files is set.
 */
export interface ScriptDefinition {
  checkType: 'MULTI_STEP' | 'PLAYWRIGHT' | 'BROWSER';
  script?: string;
  files?: ScriptFile[];
  /** The check's own runtime; null runs it in ProbeContext.runtimeId (its group's or account's). */
  runtimeId: string | null;
  /**
   * When a PLAYWRIGHT run keeps its screenshot and trace, as for BROWSER checks (absent: ON_FAILURE);
   * a MULTI_STEP run keeps failing responses' bodies on failure unless NEVER.
   */
  artifacts?: 'ALWAYS' | 'ON_FAILURE' | 'NEVER';
}

export type RunnableCheckType = RunnableDefinition['checkType'];

export interface ProbeContext {
  /** The result's id (the runner derives it from check, location and window). */
  resultId: string;
  accountId: string;
  checkId: string;
  location: string;
  startedAt: Date;
  /** ms: a slower run is degraded. */
  degradedResponseTime: number;
  /** ms: a slower run fails. */
  maxResponseTime: number;
  /** Plaintext values for {{VAR}}, secrets included. */
  variables: Record<string, string>;
  /** Scrubbed from every string a probe outputs (result, assertion outcomes, errors). */
  secretValues: string[];
  /** Lifts the address policy (VIGIL_ALLOW_PRIVATE_TARGETS, or its alias VIGIL_RUNNER_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Hard limit of one attempt, in ms. */
  timeoutMs: number;
  /** Aborts the run (and the retries of runWithRetries). */
  signal?: AbortSignal;
  /** Needed by BROWSER runs. */
  browser?: BrowserPool;
  /** Runs script checks in the sandbox; without one they fail with a message saying so. */
  scripts?: ScriptRunner;
  /** The runtime a script check runs in when it names none: its group's, else its account's, else the current one. */
  runtimeId?: string;
}

export interface AssertionOutcome {
  assertion: Assertion;
  passed: boolean;
  /** The value the assertion saw, as text, truncated and scrubbed. */
  actual: string;
  message?: string;
}

/** A file a run produced (screenshot, trace, failing response body), before the runner stores it. */
export interface RawArtifact {
  kind: ArtifactKind;
  contentType: string;
  body: Buffer;
  /** What it shows: a file name, or the request a response body answered. */
  name?: string;
}

export interface ProbeOutcome {
  result: CheckResult;
  assertions: AssertionOutcome[];
  /** Kept by the runner in the artifact store, and named in result.artifacts, before the result is published. */
  artifacts?: RawArtifact[];
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface BrowserRunOptions {
  viewport: { width: number; height: number };
  /** A proxy every request of the context goes through (the address policy), or none. */
  proxy?: { server: string };
  signal?: AbortSignal;
}

/** A pooled Chromium: each run gets a fresh context; at most maxPages run at once. */
export interface BrowserPool {
  withContext<T>(options: BrowserRunOptions, work: (context: BrowserContext) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The probe library as a port, for apps that want to swap it in tests. */
export interface Prober {
  runProbe(definition: RunnableDefinition, context: ProbeContext): Promise<ProbeOutcome>;
  runWithRetries(definition: RunnableDefinition, context: ProbeContext, retry: RetryStrategy): Promise<ProbeOutcome>;
  close(): Promise<void>;
}

// The script runner as a port: #scripts implements it (sandboxed runs in real runtimes); the probe
// library only turns its outcome into a v1 result, so it does not depend on the sandbox.
export interface ScriptRunRequest {
  kind: 'MULTI_STEP' | 'PLAYWRIGHT';
  script?: string;
  files?: ScriptFile[];
  runtimeName: string;
  /** The script's whole process.env: the check's variables, secrets included. */
  env: Record<string, string>;
  /** The run's whole budget. */
  timeoutMs: number;
  allowPrivate: boolean;
  /** PLAYWRIGHT: screenshot and trace.zip; MULTI_STEP: failing responses' bodies (on failure). Default NEVER. */
  artifacts?: 'ALWAYS' | 'ON_FAILURE' | 'NEVER';
  /** ON_FAILURE: a passing test whose page is still open this many ms after the run began keeps its evidence too (the run is degraded). */
  degradedMs?: number;
  signal?: AbortSignal;
}

export interface ScriptRunStep {
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  durationMs: number;
  error?: string;
}

export type ScriptRunRequestRecord = NonNullable<CheckResultInput['requests']>[number];
export type ScriptRunPage = NonNullable<CheckResultInput['pages']>[number];

export interface ScriptRunOutcome {
  passed: boolean;
  durationMs: number;
  error?: string;
  steps: ScriptRunStep[];
  logs: string;
  requests: ScriptRunRequestRecord[];
  pages: ScriptRunPage[];
  failedExpectations?: { message: string; step?: string }[];
  /** Evidence the run handed out (format checked, capped); text ones are scrubbed by the probe. */
  artifacts?: RawArtifact[];
}

export interface ScriptRunner {
  ready(): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Never throws for anything the script or its target does: failures come back as passed=false. */
  run(request: ScriptRunRequest): Promise<ScriptRunOutcome>;
  close(): Promise<void>;
}
