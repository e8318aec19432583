import type {
  ApiRequest,
  Assertion,
  BrowserDefinition,
  CheckResult,
  DnsRequest,
  RetryStrategy,
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
  | { checkType: 'BROWSER'; browser: BrowserDefinition };

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
  /** Lifts the address policy (VIGIL_RUNNER_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Hard limit of one attempt, in ms. */
  timeoutMs: number;
  /** Aborts the run (and the retries of runWithRetries). */
  signal?: AbortSignal;
  /** Needed by BROWSER runs. */
  browser?: BrowserPool;
}

export interface AssertionOutcome {
  assertion: Assertion;
  passed: boolean;
  /** The value the assertion saw, as text, truncated and scrubbed. */
  actual: string;
  message?: string;
}

export interface ProbeOutcome {
  result: CheckResult;
  assertions: AssertionOutcome[];
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
