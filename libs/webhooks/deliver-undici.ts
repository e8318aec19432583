import { Agent, type Dispatcher } from 'undici';
import {
  AddressRefused,
  AttemptAborted,
  AttemptTimedOut,
  attemptResult,
  connectLookup,
  defaultLookups,
  describe,
  RESPONSE_BODY_LIMIT,
  type ConnectLookup,
  type Resolver,
} from './deliver-connect.ts';
import type { DeliveryOptions, DeliveryResult } from './deliver.ts';

/** What one attempt sends, worked out by deliver.ts (headers already checked as Node checks them). */
export interface UndiciAttempt {
  origin: string;
  path: string;
  method: string;
  /** Flat name, value list: the channel's and the service's headers, Host, Authorization from the URL. */
  headers: string[];
  body: string | null;
  /** What the result reports as sent. */
  requestHeaders: Record<string, string>;
}

/**
 * Keep-alive pools, one per address policy (and per custom resolver, which tests pass), so a
 * socket opened while private addresses were allowed is never reused by a request that forbids
 * them. Every new connection runs the connect-time lookup: undici passes `connect` options on to
 * net.connect and tls.connect. As many connections per origin as the node:http pools kept (256);
 * idle ones close after 60 s, or sooner when the receiver's Keep-Alive says so. The connect
 * timeout is the longest attempt allowed (VIGIL_WEBHOOK_TIMEOUT_MS ≤ 120 s): the attempt's own
 * timer is what ends an attempt, and undici's header and body timers are off.
 */
function createAgent(lookup: ConnectLookup): Agent {
  return new Agent({
    connections: 256,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 60_000,
    connect: { lookup: lookup as never, timeout: 120_000 },
  });
}
const agents = { strict: createAgent(defaultLookups.strict), open: createAgent(defaultLookups.open) };
const customAgents = { strict: new WeakMap<Resolver, Agent>(), open: new WeakMap<Resolver, Agent>() };

function agentFor(options: DeliveryOptions): Agent {
  const policy = options.allowPrivate ? 'open' : 'strict';
  if (!options.resolve) return agents[policy];
  let agent = customAgents[policy].get(options.resolve);
  if (!agent) {
    agent = createAgent(connectLookup(options.resolve, !options.allowPrivate));
    customAgents[policy].set(options.resolve, agent);
  }
  return agent;
}

/**
 * One attempt in flight, and its undici handler: methods on the prototype, so an attempt
 * allocates this object and no closures. undici hands `abort` over only as the request is
 * written; an attempt that ends before that (timeout or abort while connecting) settles at once,
 * and the request is aborted when it reaches the socket, so nothing goes out after the result.
 */
class Attempt implements Dispatcher.DispatchHandler {
  settled = false;
  /** Set while dispatch runs: an error then means undici would never send this request. */
  dispatching = true;
  statusCode: number | undefined = undefined;
  chunks: Buffer[] = [];
  received = 0;
  timer: NodeJS.Timeout | undefined = undefined;
  abortRequest: ((reason?: Error) => void) | undefined = undefined;
  stopReason: Error | undefined = undefined;
  onSignal: (() => void) | undefined = undefined;

  constructor(
    readonly attempt: UndiciAttempt,
    readonly options: DeliveryOptions,
    readonly started: number,
    readonly done: (result: DeliveryResult) => void,
  ) {}

  /** Ends the attempt (timeout, abort): the request is aborted now, or as soon as undici can. */
  stop(reason: Error): void {
    if (this.settled) return;
    this.stopReason = reason;
    if (this.abortRequest) this.abortRequest(reason);
    else this.finish(reason);
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
    if (this.settled) abort(this.stopReason ?? new AttemptAborted('aborted'));
  }
  onHeaders(statusCode: number): boolean {
    this.statusCode = statusCode;
    return true;
  }
  onData(chunk: Buffer): boolean {
    if (this.received < RESPONSE_BODY_LIMIT) this.chunks.push(chunk);
    this.received += chunk.length;
    if (this.received < RESPONSE_BODY_LIMIT) return true;
    // Enough read: the rest is not wanted, so the connection is closed rather than drained.
    this.finish();
    this.abortRequest?.(new AttemptAborted('response body limit reached'));
    return false;
  }
  onComplete(): void {
    this.finish();
  }
  onError(error: Error): void {
    this.finish(this.stopReason ?? error);
  }

  finish(error?: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    if (this.onSignal) this.options.signal?.removeEventListener('abort', this.onSignal);
    this.done(
      attemptResult(this.statusCode, this.chunks, this.started, this.attempt.requestHeaders, () => {
        if (error instanceof AddressRefused) return { outcome: 'refused', error: error.message };
        // An error while dispatching: undici refuses the request itself, and no retry changes that.
        if (this.dispatching && error) return { outcome: 'refused', error: `refused: ${failureText(error)}` };
        return { outcome: 'failed', error: error ? failureText(error) : 'ECONNRESET: socket hang up' };
      }),
    );
  }
}

/**
 * What a failure says, without undici's names (users read it in the delivery log): a connection
 * closed before the answer reads as node:http put it; another undici error gives its message.
 */
function failureText(error: Error): string {
  const { code } = error as { code?: unknown };
  if (code === 'UND_ERR_SOCKET') return 'ECONNRESET: socket hang up';
  if (typeof code === 'string' && code.startsWith('UND_ERR_')) return error.message;
  return describe(error);
}

function onTimeout(attempt: Attempt): void {
  attempt.stop(new AttemptTimedOut(`timed out after ${attempt.options.timeoutMs} ms`));
}

/** Sends one attempt through undici. Never throws: every way it can end is a result. */
export function sendUndici(attempt: UndiciAttempt, options: DeliveryOptions, started: number): Promise<DeliveryResult> {
  return new Promise<DeliveryResult>((done) => {
    const state = new Attempt(attempt, options, started, done);
    state.timer = setTimeout(onTimeout, options.timeoutMs, state);
    const { signal } = options;
    if (signal) {
      if (signal.aborted) {
        state.dispatching = false;
        return state.finish(new AttemptAborted('aborted'));
      }
      state.onSignal = () => state.stop(new AttemptAborted('aborted'));
      signal.addEventListener('abort', state.onSignal, { once: true });
    }
    agentFor(options).dispatch(
      {
        origin: attempt.origin,
        path: attempt.path,
        method: attempt.method as Dispatcher.HttpMethod,
        headers: attempt.headers,
        body: attempt.body,
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      state,
    );
    state.dispatching = false;
  });
}
