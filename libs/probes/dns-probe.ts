import { getServers } from 'node:dns';
import { performance } from 'node:perf_hooks';
import type { DnsRequest } from '#domain';
import { resolveGuarded } from './address.ts';
import { evaluateAssertions } from './assertions.ts';
import { queryDns } from './dns-client.ts';
import { jsonAnswer, textAnswer } from './dns-format.ts';
import { errorText, type RawRun } from './result.ts';
import { substitute } from './secrets.ts';

/** The first resolver of /etc/resolv.conf, as `[address, port]`. */
function systemResolver(): [string, number] {
  const [first] = getServers();
  if (!first) throw new Error('no nameServer given and the system has no resolver (/etc/resolv.conf)');
  const bracketed = /^\[(.+)\]:(\d+)$/.exec(first);
  if (bracketed) return [bracketed[1] as string, Number(bracketed[2])];
  const v4 = /^([\d.]+):(\d+)$/.exec(first);
  if (v4) return [v4[1] as string, Number(v4[2])];
  return [first, 53];
}

export async function runDns(
  request: DnsRequest,
  vars: Record<string, string>,
  allowPrivate: boolean,
  signal: AbortSignal,
): Promise<RawRun> {
  const start = performance.now();
  const name = substitute(request.query, vars).replace(/\.$/, '');
  let server: string;
  let port: number;
  try {
    if (request.nameServer === undefined) {
      // The system's own resolver is the operator's choice, not the user's: no address policy.
      [server, port] = systemResolver();
      port = request.port ?? port;
    } else {
      server = await resolveGuarded(substitute(request.nameServer, vars), allowPrivate);
      port = request.port ?? 53;
    }
  } catch (error) {
    return { responseTime: performance.now() - start, error: `DNS server: ${errorText(error)}`, assertions: [] };
  }
  const queryStart = performance.now();
  let reply: Awaited<ReturnType<typeof queryDns>>;
  try {
    reply = await queryDns({ name, type: request.recordType, server, port, protocol: request.protocol, signal });
  } catch (error) {
    return {
      responseTime: performance.now() - start,
      error: `DNS ${request.recordType} ${name} @${server}:${port} over ${request.protocol}: ${errorText(error)}`,
      assertions: [],
    };
  }
  const end = performance.now();
  const responseTime = end - start;
  const assertions = evaluateAssertions('DNS', request.assertions, {
    responseCode: reply.rcode,
    textAnswer: textAnswer(reply),
    jsonAnswer: jsonAnswer(reply, reply.rcode),
    responseTime,
  });
  const implicitFailure =
    request.assertions.length === 0 && reply.rcode !== 'NOERROR' ? `response code ${reply.rcode}` : undefined;
  return {
    responseTime,
    assertions,
    ...(implicitFailure ? { implicitFailure } : {}),
    // Resolving a named nameServer is the wait; the query itself is the rest.
    timings: { wait: queryStart - start, total: responseTime },
  };
}
