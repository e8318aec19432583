import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { services, uniqueSuffix } from '#test-support';
import { client, createAccount, startVigil, type TestVigil } from '#test-vigil';

/** Generous: a loaded two-core machine; the guard acts on the revocation's own announcement. */
const PROMPT_MS = 15_000;

interface Stream {
  text(): string;
  /** Whether the server has not ended it (yet). */
  isOpen(): boolean;
  /** Resolves when the server ended the stream; rejects after PROMPT_MS. */
  ended(): Promise<void>;
  waitFor(needle: string): Promise<void>;
  stop(): void;
}

async function openStream(url: string, key: string, accountId: string): Promise<Stream> {
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/events`, {
    headers: { authorization: `Bearer ${key}`, 'x-service-account': accountId },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let done = false;
  const pump = (async () => {
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
    } catch {
      // Aborted by stop(): the test ended it, not the server.
    }
    done = true;
  })();
  const until = async (ok: () => boolean, what: string) => {
    const deadline = Date.now() + PROMPT_MS;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`${what} within ${PROMPT_MS} ms; received so far: ${text}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const stream: Stream = {
    text: () => text,
    isOpen: () => !done,
    ended: async () => {
      await until(() => done, 'the server did not end the stream');
      await pump;
    },
    waitFor: (needle) => until(() => text.includes(needle) || done, `"${needle}" did not arrive`),
    stop: () => controller.abort(),
  };
  await stream.waitFor(': connected');
  return stream;
}

/**
 * Issue 21 item 6: an open event stream on one API replica closes when its key is revoked, or its
 * user removed, through the other replica; a stream whose access remains stays open.
 */
describe('event streams after revocation, across two API replicas on Redis', () => {
  const prefix = `vigil-test-streams-${uniqueSuffix()}:`;
  let writer: TestVigil;
  let streaming: TestVigil;
  const open: Stream[] = [];

  beforeAll(async () => {
    const env = { REDIS_URL: services().REDIS_URL, REDIS_KEY_PREFIX: prefix };
    // The writer runs the projector and the pipeline; the streaming replica only serves the API.
    writer = await startVigil({ env });
    streaming = await startVigil({ env: { ...env, VIGIL_STANDALONE_APPS: 'api' } });
  });
  afterAll(async () => {
    for (const stream of open) stream.stop();
    await streaming?.stop();
    await writer?.stop();
    const admin = new Redis(services().REDIS_URL);
    const leftovers = await admin.keys(`${prefix}*`);
    if (leftovers.length > 0) await admin.del(...leftovers);
    admin.disconnect();
  });

  async function setup() {
    const a = await createAccount(writer);
    const check = await a.owner.post('/v1/checks', { name: 'Streamed', checkType: 'API', frequency: 1 });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    const ingest = writer.as(writer.ingestKey);
    /** Sends a result through the writer; its id shows up in status events of every open stream. */
    const emit = async (failing: boolean) => {
      const id = randomUUID();
      const sent = await ingest.post('/v1/check-results', [
        {
          id,
          accountId: a.accountId,
          checkId: check.body.id,
          checkType: 'API',
          startedAt: new Date().toISOString(),
          runLocation: 'eu-west-1',
          hasFailures: failing,
          responseTime: 100,
          statusCode: failing ? 500 : 200,
        },
      ]);
      expect(sent.status, JSON.stringify(sent.body)).toBeLessThan(300);
      return id;
    };
    const stream = async (key: string) => {
      const s = await openStream(streaming.url, key, a.accountId);
      open.push(s);
      return s;
    };
    // The owner's stream keeps access throughout: it shows events still flow after the others close.
    const control = await stream(a.ownerKey);
    return { a, emit, stream, control };
  }

  it('closes a stream on one replica when its key is deleted through the other', async () => {
    const { a, emit, stream, control } = await setup();
    const made = await a.owner.post('/v1/api-keys', { name: 'laptop', type: 'user' });
    expect(made.status).toBe(201);
    const revoked = await stream(made.body.key);
    const before = await emit(true);
    await revoked.waitFor(before);
    expect(revoked.text()).toContain('event: status');

    expect((await a.owner.delete(`/v1/api-keys/${made.body.id}`)).status).toBe(204);
    await revoked.ended();
    const after = await emit(false);
    await control.waitFor(after);
    expect(control.text()).toContain(after);
    expect(revoked.text()).not.toContain(after);
    expect((await client(streaming.url, made.body.key, a.accountId).get('/v1/accounts/me')).status).toBe(401);
    // A reconnect is refused as well.
    const again = await fetch(`${streaming.url}/v1/events`, {
      headers: { authorization: `Bearer ${made.body.key}`, 'x-service-account': a.accountId },
    });
    expect(again.status).toBe(401);
  });

  it('closes the streams of a removed user; a demoted user who can still read keeps them', async () => {
    const { a, emit, stream, control } = await setup();
    const member = async (role: string) => {
      const made = await a.owner.post('/v1/users', { email: `m-${uniqueSuffix()}@example.com`, role });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return { id: made.body.user.id as string, key: made.body.apiKey.key as string };
    };
    const removed = await member('READ_ONLY');
    const demoted = await member('READ_WRITE');
    const removedStreams = [await stream(removed.key), await stream(removed.key)];
    const demotedStream = await stream(demoted.key);
    const before = await emit(true);
    for (const s of [...removedStreams, demotedStream]) await s.waitFor(before);

    expect((await a.owner.patch(`/v1/users/${demoted.id}`, { role: 'READ_ONLY' })).status).toBe(200);
    expect((await a.owner.delete(`/v1/users/${removed.id}`)).status).toBe(204);
    for (const s of removedStreams) await s.ended();
    const after = await emit(false);
    await control.waitFor(after);
    await demotedStream.waitFor(after);
    expect(demotedStream.text()).toContain(after);
    for (const s of removedStreams) expect(s.text()).not.toContain(after);
    expect((await client(streaming.url, removed.key, a.accountId).get('/v1/accounts/me')).status).toBe(403);
  });
});

describe('event streams after revocation, embedded (one process, in-process invalidation)', () => {
  let vigil: TestVigil;
  const open: Stream[] = [];
  beforeAll(async () => {
    vigil = await startVigil();
  });
  afterAll(async () => {
    for (const stream of open) stream.stop();
    await vigil?.stop();
  });

  it('closes the stream of a deleted key; the owner keeps his', async () => {
    const a = await createAccount(vigil);
    const made = await a.owner.post('/v1/api-keys', { name: 'ci', type: 'user' });
    expect(made.status).toBe(201);
    const revoked = await openStream(vigil.url, made.body.key, a.accountId);
    const owner = await openStream(vigil.url, a.ownerKey, a.accountId);
    open.push(revoked, owner);
    expect((await a.owner.delete(`/v1/api-keys/${made.body.id}`)).status).toBe(204);
    await revoked.ended();
    // Time for a wrong close to land, had the guard closed every stream of the account.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(owner.isOpen()).toBe(true);
    expect((await client(vigil.url, made.body.key, a.accountId).get('/v1/accounts/me')).status).toBe(401);
  });
});
