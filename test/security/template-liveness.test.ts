import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_MAX_DEPTH, TEMPLATE_MAX_EXPRESSIONS } from '#webhooks';
import { uniqueSuffix } from '#test-support';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

// User templates are bounded: too deep or too many expressions is refused when saved (400 naming
// the limit), and previews are parsed and rendered off the event loop with a time bound, so
// /health keeps answering while hostile templates are previewed in parallel.

const deep = (n: number) => '{{#if 1}}'.repeat(n) + 'x' + '{{/if}}'.repeat(n);
// Shallow and small, but each level loops over every variable: the work multiplies per level.
const explosive = '{{#each @root}}'.repeat(8) + '{{@key}}' + '{{/each}}'.repeat(8);
const wide = `{"v":"${'{{CHECK_NAME}}'.repeat(TEMPLATE_MAX_EXPRESSIONS)}"}`;

describe('templates cannot stall the process', () => {
  let vigil: TestVigil;
  let writer: ApiClient;

  beforeAll(async () => {
    vigil = await startVigil({ env: { VIGIL_RATE_LIMIT_PER_MINUTE: '100000' } });
    const account = await createAccount(vigil);
    for (let i = 0; i < 40; i++) await account.owner.post('/v1/variables', { key: `VAR_${i}`, value: `value ${i}` });
    const invited = await account.owner.post('/v1/users', {
      email: `rw-${uniqueSuffix()}@example.com`,
      role: 'READ_WRITE',
    });
    writer = vigil.as(invited.body.apiKey.key, account.accountId);
  }, 60_000);
  afterAll(async () => {
    await vigil?.stop();
  });

  const channel = (template: string) => ({ config: { name: 'c', url: 'https://example.com/hook', template } });

  it('saving 1,000 levels of nesting gets 400 naming the depth limit', async () => {
    const response = await writer.post('/v1/alert-channels', channel(deep(1000)));
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/config\.template/);
    expect(response.body.message).toMatch(/TEMPLATE_MAX_DEPTH/);
    expect(response.body.message).toContain(String(TEMPLATE_MAX_DEPTH));
  });

  it('saving more expressions than the limit gets 400 naming it; exactly the limit is accepted', async () => {
    const over = await writer.post('/v1/alert-channels', channel(`${wide}{{CHECK_ID}}`));
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/TEMPLATE_MAX_EXPRESSIONS/);
    expect((await writer.post('/v1/alert-channels', channel(wide))).status).toBe(201);
  });

  it('/health answers within 1 s while deep, explosive and wide templates are previewed in parallel', async () => {
    const latencies: number[] = [];
    let previewing = true;
    const poll = (async () => {
      while (previewing) {
        const started = performance.now();
        const health = await fetch(`${vigil.url}/health`);
        await health.arrayBuffer();
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const previews = await Promise.all(
      [deep(4000), explosive, wide].flatMap((template) =>
        Array.from({ length: 8 }, () => writer.post('/v1/alert-channels/preview', channel(template))),
      ),
    );
    previewing = false;
    await poll;

    const statuses = previews.map((p) => p.status);
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(400));
    expect(previews[0]!.body.message).toMatch(/TEMPLATE_MAX_DEPTH/);
    expect(statuses.slice(8, 16)).toEqual(Array(8).fill(400));
    expect(previews[8]!.body.message).toMatch(/took longer than/);
    // A wide but valid template renders, unless the sandbox's time bound stops it on a loaded machine:
    // either way a clean answer, never a stalled process.
    for (const wide of previews.slice(16))
      if (wide.status !== 200) expect(`${wide.status} ${wide.body.message}`).toMatch(/^400 .*took longer than/);
    expect(latencies.length).toBeGreaterThan(0);
    // A liveness bound, not a benchmark: a blocked event loop shows up as seconds.
    expect(Math.max(...latencies)).toBeLessThan(1000);
  }, 120_000);
});
