import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { ensureSchemathesis } from './schemathesis-setup.ts';

// Schemathesis against a real server on its embedded defaults, as an account owner, with every
// check (enabled in schemathesis.toml, where the few per-operation exceptions are explained) and
// the stateful phase. Left out: the routes that can remove the caller's own access
// (DELETE /v1/api-keys/{id}, DELETE /v1/users/{id}, PATCH /v1/users/{id}); once the fuzzer deletes
// its own key or demotes its own user, every later request would only test 401/403.
// The rate limit is raised for this server only, so the fuzzer is not throttled into 429s.

const budgetSeconds = 200;
const excluded = '^(DELETE /v1/api-keys/\\{id\\}|DELETE /v1/users/\\{id\\}|PATCH /v1/users/\\{id\\})$';

let vigil: TestVigil;
let bin: string;
let reports: string;

beforeAll(async () => {
  bin = ensureSchemathesis();
  reports = mkdtempSync(join(tmpdir(), 'vigil-schemathesis-'));
  vigil = await startVigil({ env: { VIGIL_RATE_LIMIT_PER_MINUTE: '1000000' } });
}, 900_000);
afterAll(async () => {
  await vigil?.stop();
  if (reports) rmSync(reports, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(bin, args, { env: { ...process.env, NO_COLOR: '1', PYTHONUNBUFFERED: '1' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}

describe('schemathesis: the server conforms to its OpenAPI document', () => {
  it(
    'finds no failure with every check enabled, stateful phase included',
    async () => {
      const owner = await createAccount(vigil, 'enterprise');
      // From a file: the first /openapi.json of a cold process can take longer than the loader waits.
      const schemaFile = join(reports, 'openapi.json');
      writeFileSync(schemaFile, JSON.stringify((await vigil.admin.get('/openapi.json')).body));
      const result = await run([
        '--config-file',
        resolve(import.meta.dirname, 'schemathesis.toml'),
        'run',
        schemaFile,
        '--url',
        vigil.url,
        '--phases',
        'examples,coverage,fuzzing,stateful',
        '--max-time',
        String(budgetSeconds),
        '--workers',
        '2',
        // Generous: the suite shares two cores with the rest of npm test.
        '--request-timeout',
        '30',
        '--exclude-name-regex',
        excluded,
        '--header',
        `Authorization: Bearer ${owner.ownerKey}`,
        '--header',
        `X-Service-Account: ${owner.accountId}`,
        '--report',
        'junit',
        '--report-dir',
        reports,
      ]);
      const summary = result.output
        .split('\n')
        .filter((line) => line.length < 200 && /generated|failures|passed|Tested|❌/.test(line));
      process.stdout.write(`schemathesis: ${summary.join(' | ')}\n`);
      expect(result.output).toMatch(/Test cases:/);
      // On failure, the report's failures section: each failure with its curl reproduction.
      const start = result.output.search(/=+ (FAILURES|ERRORS) =+/);
      const report = start >= 0 ? result.output.slice(start) : result.output;
      if (result.code !== 0) process.stdout.write(report);
      // Any failure of a check fails the suite. A crash inside schemathesis itself (a Python
      // traceback in its own generator, with no check failing) is the tool's bug, not the server's:
      // it is reported above but does not fail the suite.
      const checkFailures = /^\s*❌ ST\d+/m.test(result.output);
      const toolCrashesOnly =
        !checkFailures &&
        /Runtime Error: \d+/.test(result.output) &&
        !/Network Error|Schema Loading/.test(result.output);
      expect(result.code === 0 || toolCrashesOnly, report.slice(0, 30_000)).toBe(true);
    },
    (budgetSeconds + 180) * 1000,
  );
});
