import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTransformer, ScriptSyntaxError } from './transform.ts';

// The real esbuild, in its own process as the runner uses it.
const transformer = createTransformer();
afterAll(() => transformer.close());

describe('script transform', () => {
  it('strips types and makes CommonJS, pointing Playwright Test at the harness and relative sources at their outputs', async () => {
    const { format, code } = await transformer.transform(
      'tests/a.spec.ts',
      `import { test, expect } from '@playwright/test';\nimport { helper } from './helper.ts';\nimport axios from 'axios';\nconst n: number = 1;\ntest('x', async () => expect(helper(n)).toBe(axios ? 1 : 0));`,
      'v22.11.0',
    );
    expect(format).toBe('cjs');
    expect(code).toContain('require("/vigil/test.cjs")');
    expect(code).toContain('require("./helper.js")');
    expect(code).toContain('require("axios")');
    expect(code).not.toContain(': number');
  });

  it('keeps a module with top-level await an ES module with a require of its own', async () => {
    const { format, code } = await transformer.transform(
      'check.spec.ts',
      `import test from 'playwright/test';\nconst r = require('lodash');\nawait Promise.resolve(r);\ntest('x', () => {});`,
      'v24.11.1',
    );
    expect(format).toBe('esm');
    expect(code).toContain('from "/vigil/test.mjs"');
    expect(code).toContain('createRequire');
  });

  it('names the place of a syntax error', async () => {
    await expect(transformer.transform('check.spec.ts', `const a = ;`, 'v24.11.1')).rejects.toThrow(
      /^check\.spec\.ts:1:11: Unexpected ";"/,
    );
  });

  it('never reads a host file that a sourceMappingURL comment names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'transform-test-'));
    try {
      const map = join(dir, 'host.map');
      writeFileSync(map, JSON.stringify({ version: 3, sources: ['HOST-ONLY-NAME'], names: [], mappings: 'AAAA' }));
      const { code } = await transformer.transform(
        'check.spec.js',
        `module.exports = 1;\n//# sourceMappingURL=${map}\n`,
        'v24.11.1',
      );
      expect(code).not.toContain('HOST-ONLY-NAME');
      expect(code).not.toContain(Buffer.from('HOST-ONLY-NAME').toString('base64').slice(0, 12));
      expect(code).not.toContain('sourceMappingURL=data:');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('survives a script that crashes the compiler, and compiles the next one', async () => {
    const hostile = `x = ${'!'.repeat(240 * 1024)}x;`;
    const failed = await transformer.transform('check.spec.js', hostile, 'v24.11.1').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ScriptSyntaxError);
    expect((failed as Error).message).toMatch(/could not be compiled/);
    const next = await transformer.transform('check.spec.js', `module.exports = 1;`, 'v24.11.1');
    expect(next.format).toBe('cjs');
  }, 60_000);
});
