import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

// The examples in /openapi.json are requests a new user copies from /docs: each one must work as it is.

type Media = { examples?: Record<string, { summary: string; value: unknown }> };
type Document = { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, Media> } }>> };

let vigil: TestVigil;
beforeAll(async () => {
  vigil = await startVigil();
}, 120_000);
afterAll(async () => vigil?.stop());

describe('request examples in the OpenAPI document', () => {
  it('are documented on the main operations, and each one is accepted as it is', async () => {
    const document = (await vigil.admin.get<Document>('/openapi.json')).body;
    const examples = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        Object.entries(operation.requestBody?.content?.['application/json']?.examples ?? {}).map(([name, example]) => ({
          operation: `${method.toUpperCase()} ${path}`,
          name,
          example,
        })),
      ),
    );
    const operations = new Set(examples.map((entry) => entry.operation));
    for (const main of ['POST /v1/checks', 'POST /v1/variables', 'POST /v1/alert-channels', 'POST /v1/checks/test'])
      expect(operations, main).toContain(main);
    expect(examples.length).toBeGreaterThanOrEqual(10);

    const { owner } = await createAccount(vigil, 'enterprise');
    for (const { operation, name, example } of examples) {
      expect(example.summary.length, `${operation} ${name} has a summary`).toBeGreaterThan(0);
      const [method, path] = operation.split(' ') as [string, string];
      const response = await owner.request(method, path, { body: example.value });
      expect(response.status, `${operation} example "${name}": ${JSON.stringify(response.body)}`).toBeLessThan(300);
      expect(response.status).toBeGreaterThanOrEqual(200);
    }
  }, 120_000);
});
