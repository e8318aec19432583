import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCheckResult } from '#domain';
import { generateSchemas, render } from './schemas.ts';

const root = fileURLToPath(new URL('../schemas/', import.meta.url));
const committed = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? committed(join(dir, entry.name)) : [join(dir, entry.name)],
  );

describe('schemas/', () => {
  const generated = generateSchemas();

  it('holds exactly the generated files, byte for byte (run `npm run schemas` after changing a zod type)', () => {
    expect(committed('').sort()).toEqual(Object.keys(generated).sort());
    for (const [name, json] of Object.entries(generated)) {
      expect(readFileSync(join(root, name), 'utf8'), name).toBe(render(json));
    }
  });

  it('describes the check-result fields the zod schema accepts and requires', () => {
    const schema = generated['check-result.v1.json'] as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining([
        'id',
        'accountId',
        'checkId',
        'checkType',
        'startedAt',
        'runLocation',
        'hasFailures',
        'responseTime',
        'timings',
        'pages',
        'heartbeat',
        'ssl',
      ]),
    );
    expect(schema.required).toEqual(
      expect.arrayContaining([
        'id',
        'accountId',
        'checkId',
        'checkType',
        'startedAt',
        'runLocation',
        'hasFailures',
        'responseTime',
      ]),
    );
    expect(schema.required).not.toContain('isDegraded');
    const minimal = Object.fromEntries(
      schema.required.map((key) => [
        key,
        {
          id: crypto.randomUUID(),
          accountId: crypto.randomUUID(),
          checkId: crypto.randomUUID(),
          checkType: 'TCP',
          startedAt: new Date().toISOString(),
          runLocation: 'x',
          hasFailures: false,
          responseTime: 1,
        }[key],
      ]),
    );
    expect(parseCheckResult(minimal).ok).toBe(true);
  });
});
