import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { redactPaths } from '#core';
import { createHttpServer } from './server.ts';
import { createMetricsRegistry } from './metrics.ts';

async function serverWithLog(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) });
  const log = pino({ level, redact: { paths: redactPaths, censor: '[redacted]' } }, sink);
  let children = 0;
  // Counts children made from the root or below it (pino children inherit this method).
  const child = log.child;
  log.child = function (this: typeof log, ...args: Parameters<typeof log.child>) {
    children++;
    return child.apply(this, args);
  } as typeof log.child;
  const app = await createHttpServer({
    log,
    title: 't',
    version: '1',
    metrics: createMetricsRegistry(),
    readiness: [],
  });
  app.get('/quiet', async (request) => {
    request.log.debug({ detail: 1 }, 'not at info');
    return { ok: true };
  });
  app.get('/loud', async (request) => {
    request.log.info({ headers: { authorization: 'Bearer vgl_leak1' }, apiKey: 'vgl_leak2' }, 'handler line');
    request.log.child({ step: 'inner' }).warn({ secret: 'leak3' }, 'child line');
    return { ok: true };
  });
  app.get('/fails', async () => {
    throw new Error('boom');
  });
  app.get('/v1/checks/:id/trigger/:token', async (_request, reply) => reply.code(404).send({ message: 'no' }));
  app.get('/v1/check-groups/:id/trigger/:token', async (_request, reply) => reply.code(404).send({ message: 'no' }));
  app.get('/checkly/check-groups/:id/trigger/:token', async (_request, reply) => reply.code(503).send({}));
  app.get('/ping/:token', async (_request, reply) => reply.code(429).send({ message: 'slow down' }));
  await app.ready();
  return { app, lines, children: () => children };
}

describe('per-request logger', () => {
  it('makes no child logger for a request that logs nothing at an enabled level', async () => {
    const { app, lines, children } = await serverWithLog('info');
    const before = children();
    for (let i = 0; i < 5; i++) expect((await app.inject('/quiet')).statusCode).toBe(200);
    expect(children() - before).toBe(0);
    expect(lines).toEqual([]);
    await app.close();
  });

  it('keeps the request id on handler lines, redacts secrets, and logs failures', async () => {
    const { app, lines } = await serverWithLog('info');
    const loud = await app.inject({ url: '/loud', headers: { 'x-request-id': 'req-abc' } });
    expect(loud.statusCode).toBe(200);
    const text = JSON.stringify(lines);
    for (const leaked of ['vgl_leak1', 'vgl_leak2', 'leak3']) expect(text).not.toContain(leaked);
    expect(lines.find((l) => l.msg === 'handler line')).toMatchObject({
      reqId: 'req-abc',
      headers: { authorization: '[redacted]' },
      apiKey: '[redacted]',
    });
    expect(lines.find((l) => l.msg === 'child line')).toMatchObject({ reqId: 'req-abc', step: 'inner' });

    const failed = await app.inject({ url: '/fails', headers: { 'x-request-id': 'req-err' } });
    expect(failed.statusCode).toBe(500);
    expect(lines.filter((l) => l.reqId === 'req-err').map((l) => l.msg)).toContain('request completed');
    await app.close();
  });

  it('never logs the token of a trigger or ping URL', async () => {
    const { app, lines } = await serverWithLog('info');
    await app.inject({ url: '/v1/checks/c-1/trigger/trg_Secret0123456789abc?x=1' });
    await app.inject({ url: '/ping/png_Secret0123456789abc' });
    await app.inject({ url: '/v1/check-groups/g-1/trigger/grp_Secret0123456789abc' });
    await app.inject({ url: '/checkly/check-groups/12/trigger/grp_Secret0123456789abc' });
    expect(JSON.stringify(lines)).not.toContain('Secret0123456789abc');
    expect(lines.map((l) => l.url)).toEqual([
      '/v1/checks/c-1/trigger/[redacted]?x=1',
      '/ping/[redacted]',
      '/v1/check-groups/g-1/trigger/[redacted]',
      '/checkly/check-groups/12/trigger/[redacted]',
    ]);
    await app.close();
  });

  it('writes debug lines, request lines included, when the root is at debug', async () => {
    const { app, lines } = await serverWithLog('debug');
    await app.inject({ url: '/quiet', headers: { 'x-request-id': 'req-dbg' } });
    const mine = lines.filter((l) => l.reqId === 'req-dbg').map((l) => l.msg);
    expect(mine).toEqual(['not at info', 'request completed']);
    await app.close();
  });
});
