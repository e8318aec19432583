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

// The surface the API uses from the probe library; kept as a port so the API depends on no driver.
export type RunnableDefinition =
  | { checkType: 'API'; request: ApiRequest }
  | { checkType: 'URL'; request: UrlRequest }
  | { checkType: 'TCP'; request: TcpRequest }
  | { checkType: 'DNS'; request: DnsRequest }
  | { checkType: 'BROWSER'; browser: BrowserDefinition };

export interface ProbeRunContext {
  resultId: string;
  accountId: string;
  checkId: string;
  location: string;
  startedAt: Date;
  degradedResponseTime: number;
  maxResponseTime: number;
  variables: Record<string, string>;
  secretValues: string[];
  allowPrivate: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface AssertionOutcome {
  assertion: Assertion;
  passed: boolean;
  actual: string;
  message?: string;
}

export interface ProbeOutcome {
  result: CheckResult;
  assertions: AssertionOutcome[];
}

export interface Prober {
  runProbe(definition: RunnableDefinition, context: ProbeRunContext): Promise<ProbeOutcome>;
  runWithRetries(definition: RunnableDefinition, context: ProbeRunContext, retry: RetryStrategy): Promise<ProbeOutcome>;
}
