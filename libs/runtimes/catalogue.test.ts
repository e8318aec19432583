import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { assertBrowserSupported, loadCatalogue, RuntimeCatalogue, stageOn, type Runtime } from './catalogue.ts';

const catalogued = loadCatalogue();
const on = (day: string) => new RuntimeCatalogue(catalogued, () => new Date(`${day}T12:00:00Z`));
const runtime = (name: string): Runtime => {
  const found = catalogued.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`${name} is not catalogued`);
  return found;
};

describe('stageOn: life stage follows the calendar', () => {
  it('keeps the catalogued stage through the end-of-life day (UTC) and is REMOVED the day after', () => {
    const r = runtime('2024.09');
    expect(r.runtimeEndOfLife).toBe('2026-09-30');
    expect(stageOn(r, new Date('2026-09-30T00:00:00Z'))).toBe(r.stage);
    expect(stageOn(r, new Date('2026-09-30T23:59:59.999Z'))).toBe(r.stage);
    expect(stageOn(r, new Date('2026-10-01T00:00:00Z'))).toBe('REMOVED');
    expect(r.stage).not.toBe('REMOVED');
  });

  it('a runtime catalogued REMOVED stays REMOVED before its end of life', () => {
    expect(stageOn(runtime('2022.10'), new Date('2020-01-01T00:00:00Z'))).toBe('REMOVED');
  });

  it('on 2026-11-25 only 2026.04 and 2025.04 are usable; 2024.09 and older are REMOVED', () => {
    const catalogue = on('2026-11-25');
    expect(catalogue.usable().map((r) => r.name)).toEqual(['2026.04', '2025.04']);
    expect(catalogue.get('2024.09')?.stage).toBe('REMOVED');
    expect(catalogue.get('2024.02')?.stage).toBe('REMOVED');
    expect(catalogue.get('2023.09')?.stage).toBe('REMOVED');
    expect(catalogue.get('2026.04')?.stage).toBe('BETA');
    expect(catalogue.current.name).toBe('2025.04');
    // The raw data is untouched: only the view changes with the day.
    expect(catalogue.catalogued.find((r) => r.name === '2024.09')?.stage).toBe('STABLE');
  });

  it('once the CURRENT runtime is past its end of life, the newest usable one stands in', () => {
    const catalogue = on('2027-05-01');
    expect(catalogue.get('2025.04')?.stage).toBe('REMOVED');
    expect(catalogue.usable().map((r) => r.name)).toEqual(['2026.04']);
    expect(catalogue.current.name).toBe('2026.04');
    expect(() => on('2030-01-01').current).toThrow(/past its end of life/);
  });

  it('a year earlier 2024.09 was still usable', () => {
    expect(
      on('2025-11-25')
        .usable()
        .map((r) => r.name),
    ).toEqual(['2026.04', '2025.04', '2024.09', '2024.02']);
  });
});

describe('RuntimeCatalogue.assertUsable', () => {
  const catalogue = on('2026-11-25');

  it('accepts a usable runtime', () => {
    expect(() => catalogue.assertUsable('2026.04')).not.toThrow();
  });

  it('refuses a removed runtime with a 400 naming it, its end of life and the current runtime', () => {
    const error = (() => {
      try {
        catalogue.assertUsable('2024.09');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).statusCode).toBe(400);
    expect((error as Error).message).toBe(
      'runtimeId: runtime "2024.09" was removed (its end of life was 2026-09-30); use the current runtime "2025.04"',
    );
  });

  it('refuses an unknown runtime naming the field', () => {
    expect(() => catalogue.assertUsable('1999.01', 'group.runtimeId')).toThrow(
      /^group\.runtimeId: unknown runtime "1999\.01"/,
    );
  });
});

describe('RuntimeCatalogue.effective: check, then group, then account, then current', () => {
  const catalogue = on('2026-11-25');
  it('takes the first runtime named', () => {
    expect(catalogue.effective('2026.04', '2025.04', null).name).toBe('2026.04');
    expect(catalogue.effective(null, undefined, '2026.04').name).toBe('2026.04');
    expect(catalogue.effective(null, '', undefined).name).toBe('2025.04');
  });
  it('reports a removed runtime with its stage today, so the caller can refuse it', () => {
    expect(catalogue.effective(null, '2024.09').stage).toBe('REMOVED');
  });
});

describe('assertBrowserSupported', () => {
  it('passes a runtime whose Playwright drives our Chromium', () => {
    expect(() => assertBrowserSupported(runtime('2026.04'))).not.toThrow();
  });
  it('throws naming the runtime and the reason when it cannot', () => {
    const unsupported: Runtime = {
      ...runtime('2026.04'),
      name: '2030.01',
      browserSupport: { chromium: 'UNSUPPORTED', reason: 'CDP protocol mismatch' },
    };
    expect(() => assertBrowserSupported(unsupported)).toThrow(
      /runtime 2030\.01: its Playwright \(1\.56\.1\) cannot drive this deployment's Chromium: CDP protocol mismatch/,
    );
    expect(() => assertBrowserSupported(runtime('2022.10'))).toThrow(/runtime 2022\.10: .* was never verified/);
  });
});

describe('loadCatalogue', () => {
  it('is newest first and every runtime names exact dependency versions', () => {
    const names = catalogued.map((r) => r.name);
    expect(names).toEqual([...names].sort().reverse());
    expect(names.length).toBeGreaterThanOrEqual(2);
  });
  it('refuses a catalogue entry with a range instead of an exact version', async () => {
    const { runtimeSchema } = await import('./catalogue.ts');
    const bad = { ...runtime('2026.04'), dependencies: { lodash: '^4.17.21' } };
    expect(runtimeSchema.safeParse(bad).success).toBe(false);
  });
});
