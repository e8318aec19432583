import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

// Issue 21, item 5: a trigger ran one probe per location inside one of the account's 5 slots, so
// five triggers of a many-location check hit the target hundreds of times at once. Every probe run
// now takes a slot, and a check names only known locations, at most 20.

const LOCATIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'sa-east-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'eu-central-1',
  'eu-north-1',
  'eu-south-1',
  'me-south-1',
  'af-south-1',
  'ap-east-1',
  'ap-south-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'ap-northeast-2',
];
const PER_ACCOUNT = 5;

describe('runs started from the API take a slot each', () => {
  let vigil: TestVigil;
  let target: Server;
  let base = '';
  let inFlight = 0;
  let peak = 0;
  let served = 0;

  beforeAll(async () => {
    // Holds each request a while, so runs that overlap are seen overlapping.
    target = createServer((request, response) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        served += 1;
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      }, 150);
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    vigil = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await vigil?.stop();
    await new Promise((resolve) => target?.close(resolve));
  });

  it('five triggers of a 20-location check: the target never sees more than the account bound at once', async () => {
    const { owner } = await createAccount(vigil);
    const check = await owner.post('/v1/checks', {
      name: 'fan-out',
      checkType: 'URL',
      request: { url: `${base}/slow` },
      locations: LOCATIONS,
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    peak = 0;
    served = 0;
    const triggers = await Promise.all(
      Array.from({ length: 5 }, () => owner.post(`/v1/checks/${check.body.id}/trigger`)),
    );
    const done = triggers.filter((response) => response.status === 200);
    const refused = triggers.filter((response) => response.status !== 200);
    expect(done.length).toBeGreaterThanOrEqual(1);
    for (const response of done) {
      const locations = response.body.results.map((r: { result: { runLocation: string } }) => r.result.runLocation);
      expect(locations.sort()).toEqual([...LOCATIONS].sort());
    }
    for (const response of refused) {
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(served).toBe(done.length * LOCATIONS.length);
    expect(peak).toBeLessThanOrEqual(PER_ACCOUNT);
    expect(peak).toBeGreaterThan(1);
  });

  it("one account's queued trigger leaves another account's runs their own slots", async () => {
    const busy = (await createAccount(vigil)).owner;
    const other = (await createAccount(vigil)).owner;
    const check = await busy.post('/v1/checks', {
      name: 'fan-out',
      checkType: 'URL',
      request: { url: `${base}/slow` },
      locations: LOCATIONS,
    });
    expect(check.status).toBe(201);
    const trigger = busy.post(`/v1/checks/${check.body.id}/trigger`);
    // While the busy account's 20 runs queue behind its 5 slots, the other account runs at once.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const servedBefore = served;
    const run = await other.post('/v1/checks/test', { name: 'mine', checkType: 'URL', request: { url: `${base}/x` } });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.result.hasFailures).toBe(false);
    // It finished while the busy account still had runs left to serve.
    expect(served - servedBefore).toBeLessThan(LOCATIONS.length);
    expect((await trigger).status).toBe(200);
  });

  it('a check names known locations only, each once, at most 20; the message names the location', async () => {
    const { owner } = await createAccount(vigil);
    const unknown = await owner.post('/v1/checks', { name: 'x', checkType: 'API', locations: ['eu-west-1', 'mars-1'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^locations\[1\]: unknown location "mars-1"/);
    const twice = await owner.post('/v1/checks', {
      name: 'x',
      checkType: 'API',
      locations: ['eu-west-1', 'eu-west-1'],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toMatch(/^locations\[1\]/);
    const many = await owner.post('/v1/checks', {
      name: 'x',
      checkType: 'API',
      locations: [...LOCATIONS, 'ap-northeast-3'],
    });
    expect(many.status).toBe(400);
    expect(many.body.message).toMatch(/^locations: at most 20/);
    const test = await owner.post('/v1/checks/test', {
      name: 'x',
      checkType: 'URL',
      request: { url: `${base}/x` },
      locations: ['nowhere'],
    });
    expect(test.status).toBe(400);
    expect(test.body.message).toMatch(/^locations\[0\]: unknown location "nowhere"/);
    // The runner's own location ("local" here) is always known.
    const local = await owner.post('/v1/checks', { name: 'x', checkType: 'API', locations: ['local', 'eu-west-1'] });
    expect(local.status, JSON.stringify(local.body)).toBe(201);
    const updated = await owner.put(`/v1/checks/${local.body.id}`, {
      name: 'x',
      checkType: 'API',
      locations: ['atlantis'],
    });
    expect(updated.status).toBe(400);
    expect(updated.body.message).toMatch(/^locations\[0\]: unknown location "atlantis"/);

    // The OpenAPI document states the same rule, so clients (and schemathesis) know it.
    const doc = (await vigil.admin.get('/openapi.json')).body;
    const found: Array<{
      items?: { enum?: string[]; examples?: string[]; description?: string };
      maxItems?: number;
      uniqueItems?: boolean;
    }> = [];
    JSON.stringify(doc.paths['/v1/checks'].post.requestBody, (key, value) => {
      if (key === 'locations') found.push(value);
      return value;
    });
    const resolved = JSON.stringify(doc.components?.schemas ?? {}, (key, value) => {
      if (key === 'locations' && value?.type === 'array') found.push(value);
      return value;
    });
    expect(resolved.length).toBeGreaterThan(0);
    // Private locations' slugs are account data, so the items are no enum: the description names
    // every runner location and the examples are some of them.
    const stated = found.filter((schema) => schema.items?.description);
    expect(stated.length).toBeGreaterThan(0);
    for (const schema of stated) {
      expect(schema.items!.enum).toBeUndefined();
      for (const name of [...LOCATIONS, 'local']) expect(schema.items!.description).toContain(name);
      expect(schema.items!.examples!.length).toBeGreaterThan(0);
      expect(schema.maxItems).toBe(20);
      expect(schema.uniqueItems).toBe(true);
    }
  });
});
