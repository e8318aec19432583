import { getServers } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { domainToASCII } from 'node:url';
import type { DnsRequest } from '#domain';
import { resolveGuarded } from './address.ts';
import { judgeAssertions } from './assertions.ts';
import { queryDns } from './dns-client.ts';
import { jsonAnswer, textAnswer } from './dns-format.ts';
import { errorText, type RawRun } from './result.ts';
import { substitute } from './secrets.ts';

const SYSTEM_RESOLVER = 'the system resolver';

/** The first resolver of /etc/resolv.conf, as `[address, port]`. */
function systemResolver(): [string, number] {
  const [first] = getServers();
  if (!first) throw new Error(`no nameServer given and there is no system resolver (/etc/resolv.conf)`);
  const bracketed = /^\[(.+)\]:(\d+)$/.exec(first);
  if (bracketed) return [bracketed[1] as string, Number(bracketed[2])];
  const v4 = /^([\d.]+):(\d+)$/.exec(first);
  if (v4) return [v4[1] as string, Number(v4[2])];
  return [first, 53];
}

const LABEL = /^(?:\*|[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)$/;

/**
 * The query name as sent: an IDN as its A-label, one trailing dot dropped. The input rules are
 * checked again on the name a run resolves to, since {{VAR}}s and stored checks bypass them.
 */
export function queryName(raw: string): { name: string } | { problem: string } {
  if (/[\p{Cc}\s]/u.test(raw)) return { problem: 'has spaces or control characters' };
  const trimmed = raw.replace(/\.$/, '');
  // Underscores are not hostname characters, so only a non-ASCII name goes through IDNA.
  if (trimmed === '') return raw === '.' ? { name: '.' } : { problem: 'is empty' }; // "." is the root zone
  const name = /^[\x21-\x7e]*$/.test(trimmed) ? trimmed : domainToASCII(trimmed);
  if (name === '') return { problem: 'is not a valid international domain name' };
  if (name.length > 253) return { problem: 'is longer than 253 characters' };
  const labels = name.split('.');
  if (labels.some((label) => label.length > 63)) return { problem: 'has a label longer than 63 characters' };
  if (!labels.every((label) => LABEL.test(label)))
    return { problem: 'may only hold labels of letters, digits, hyphens and underscores between dots' };
  return { name };
}

export async function runDns(
  request: DnsRequest,
  vars: Record<string, string>,
  allowPrivate: boolean,
  signal: AbortSignal,
): Promise<RawRun> {
  const start = performance.now();
  const failed = (error: string): RawRun => ({ responseTime: performance.now() - start, error, assertions: [] });
  const asked = substitute(request.query, vars);
  const query = queryName(asked);
  if ('problem' in query) return failed(`query: ${JSON.stringify(asked)} is not a DNS name: it ${query.problem}`);
  const { name } = query;
  let server: string;
  let port: number;
  // How the server is named in errors: the system resolver's address is the operator's, never shown.
  let shownServer: string;
  if (request.nameServer === undefined) {
    // Stored before the input rule: a port would point the system resolver's address at any port.
    if (request.port !== undefined && request.port !== 53)
      return failed(
        `port ${request.port} needs a nameServer: without one the query goes to ${SYSTEM_RESOLVER}, on port 53 only`,
      );
    try {
      // The system's own resolver is the operator's choice, not the user's: no address policy.
      [server, port] = systemResolver();
    } catch (error) {
      return failed(`DNS server: ${errorText(error)}`);
    }
    shownServer = SYSTEM_RESOLVER;
  } else {
    const nameServer = substitute(request.nameServer, vars);
    try {
      server = await resolveGuarded(nameServer, allowPrivate);
    } catch (error) {
      return failed(`DNS server: ${errorText(error)}`);
    }
    port = request.port ?? 53;
    shownServer = `${nameServer}:${port}`;
  }
  const queryStart = performance.now();
  let reply: Awaited<ReturnType<typeof queryDns>>;
  try {
    reply = await queryDns({ name, type: request.recordType, server, port, protocol: request.protocol, signal });
  } catch (error) {
    let text = errorText(error);
    // Socket errors name the address they failed on (connect ECONNREFUSED a.b.c.d:53).
    if (shownServer === SYSTEM_RESOLVER) text = text.split(server).join(SYSTEM_RESOLVER);
    return failed(`DNS ${request.recordType} ${name} @${shownServer} over ${request.protocol}: ${text}`);
  }
  const end = performance.now();
  const responseTime = end - start;
  const assertions = judgeAssertions('DNS', request.assertions, {
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
