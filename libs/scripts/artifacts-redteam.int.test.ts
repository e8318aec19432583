/*
 * Red-team suite of script-run artifacts: the script owns /work, so it can put anything under the
 * names the runner reads evidence from. Each test passes only when the attack keeps nothing (or
 * nothing but the script's own, capped, well-formed bytes): no host file read through a link, no
 * oversized file kept or cut, no file of the wrong format, no forged body file over its cap.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRig, type Rig } from './redteam-support.ts';

let rig: Rig;
let hostDir: string;
const PNG_MAGIC = '\\x89PNG\\r\\n\\x1a\\n';

beforeAll(async () => {
  rig = await startRig();
  hostDir = mkdtempSync(join(tmpdir(), 'vigil-artifacts-redteam-'));
});
afterAll(async () => {
  await rig?.close();
  if (hostDir) rmSync(hostDir, { recursive: true, force: true });
});

/** A PLAYWRIGHT script that never opens a page (so the harness writes nothing), does `body`, then fails. */
const failing = (body: string) => `
const fs = require('node:fs');
const { test, expect } = require('@playwright/test');
test('hostile', async () => {
  ${body}
  expect('run').toBe('failed');
});`;

const playwright = async (script: string) => {
  const outcome = await rig.runner.run(
    rig.request({ kind: 'PLAYWRIGHT', artifacts: 'ALWAYS', script, timeoutMs: 120_000 }),
  );
  // The attack ran to its end: the run failed on the last line, not on an earlier throw.
  expect(outcome.error ?? outcome.failedExpectations?.[0]?.message ?? '').toMatch(/Expected: "failed"/);
  return outcome;
};

describe('red team: script-run artifacts', () => {
  it('control: a regular, capped file of the right format under the name is the run’s own evidence', async () => {
    const outcome = await playwright(
      failing(`fs.writeFileSync('/work/.vigil-screenshot.png', Buffer.from('${PNG_MAGIC}own bytes', 'latin1'));`),
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.artifacts?.map((a) => [a.kind, a.body.subarray(8).toString()])).toEqual([
      ['screenshot', 'own bytes'],
    ]);
  });

  it('never reads a host file through a symlink named screenshot.png or trace.zip', async () => {
    // Host files of the right format: kept, they would prove the link was followed on the host.
    const hostPng = join(hostDir, 'host.png');
    const hostZip = join(hostDir, 'host.zip');
    writeFileSync(
      hostPng,
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('HOST')]),
    );
    writeFileSync(hostZip, Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('HOST')]));
    const outcome = await playwright(
      failing(`
  fs.symlinkSync(${JSON.stringify(hostPng)}, '/work/.vigil-screenshot.png');
  fs.symlinkSync(${JSON.stringify(hostZip)}, '/work/.vigil-trace.zip');`),
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.artifacts).toBeUndefined();
  });

  it('refuses a directory, a FIFO or a file of the wrong format under the names', async () => {
    const outcome = await playwright(
      failing(`
  fs.mkdirSync('/work/.vigil-screenshot.png');
  fs.writeFileSync('/work/.vigil-screenshot.png/x', '${PNG_MAGIC}');
  require('node:child_process').execFileSync('mkfifo', ['/work/.vigil-bodies.jsonl']);
  fs.writeFileSync('/work/.vigil-trace.zip', 'not a zip at all, just text named like one');`),
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.error ?? '').not.toContain('mkfifo');
    expect(outcome.artifacts).toBeUndefined();
  });

  it('refuses a 2 GB "trace" whole: the write stops at the sandbox disk cap and nothing is kept or cut', async () => {
    const outcome = await playwright(
      failing(`
  // A screenshot one MiB over its 20 MiB cap, then a trace written until the disk says no.
  fs.writeFileSync('/work/.vigil-screenshot.png', Buffer.concat([Buffer.from('${PNG_MAGIC}', 'latin1'), Buffer.alloc(21 * 1024 * 1024)]));
  const fd = fs.openSync('/work/.vigil-trace.zip', 'w');
  const chunk = Buffer.alloc(8 * 1024 * 1024, 0x41);
  chunk.write('PK\\x03\\x04', 0, 'latin1');
  let written = 0;
  try {
    while (written < 2 * 1024 * 1024 * 1024) written += fs.writeSync(fd, written === 0 ? chunk : chunk.subarray(8));
  } catch (error) {
    console.log('write stopped at', written, String(error.code));
  }
  fs.closeSync(fd);`),
    );
    expect(outcome.passed).toBe(false);
    const stopped = Number(/write stopped at (\d+)/.exec(outcome.logs)?.[1]);
    expect(stopped).toBeGreaterThan(60 * 1024 * 1024);
    expect(stopped).toBeLessThan(2 * 1024 * 1024 * 1024);
    expect(outcome.artifacts).toBeUndefined();
  });

  it('refuses a forged MULTI_STEP bodies file over its cap, and skips lines not of the harness’s shape', async () => {
    const forged = `
const fs = require('node:fs');
const { test, expect } = require('@playwright/test');
test('hostile', async () => {
  const lines = ['not json', JSON.stringify({ method: 1, url: 'x', body: 'y' }), JSON.stringify({ method: 'GET', url: 'http://x/', body: 'kept' })];
  // BIG: a 17 MiB line after the well-formed one, so only the cap (not a cut line) refuses it.
  if (process.env.BIG) lines.push('z'.repeat(17 * 1024 * 1024));
  fs.writeFileSync('/work/.vigil-bodies.jsonl', lines.join('\\n') + '\\n');
  expect('run').toBe('failed');
});`;
    const small = await rig.runner.run(rig.request({ kind: 'MULTI_STEP', artifacts: 'ON_FAILURE', script: forged }));
    expect(small.passed).toBe(false);
    expect(small.artifacts?.map((a) => [a.name, a.body.toString()])).toEqual([['GET http://x/', 'kept']]);
    const big = await rig.runner.run(
      rig.request({ kind: 'MULTI_STEP', artifacts: 'ON_FAILURE', script: forged, env: { BIG: '1' } }),
    );
    expect(big.passed).toBe(false);
    expect(big.artifacts).toBeUndefined();
  });
});
