import { parseEnv } from 'node:util';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { flatten, rounding } from '../../apps/cli/src/commands/analytics.ts';
import { analyticsKind, shortCheckType } from '../../apps/cli/src/check-types.ts';
import { dotenvLine } from '../../apps/cli/src/dotenv.ts';
import { csvLine } from '../../apps/cli/src/output.ts';
import { buildProgram } from '../../apps/cli/src/program.ts';
import { analyticsSchema } from '../../apps/cli/src/schemas.ts';

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

describe('help', () => {
  it('every command and subcommand ends its --help with an example', () => {
    let text = '';
    const program = buildProgram({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) });
    const commands = allCommands(program).filter((command) => command.name() !== 'help');
    expect(commands.length).toBeGreaterThan(35);
    for (const command of commands) {
      text = '';
      command.outputHelp();
      expect(text, `vigil ${command.name()} --help`).toMatch(/\nExample:\n {2}\$ \S/);
    }
  });

  it('has every command of the issue', () => {
    const names = allCommands(buildProgram()).map((command) => {
      const path: string[] = [];
      for (let at: Command | null = command; at?.parent; at = at.parent) path.unshift(at.name());
      return path.join(' ');
    });
    for (const expected of [
      'login',
      'whoami',
      'accounts ls',
      'accounts get',
      'env ls',
      'env get',
      'env add',
      'env update',
      'env rm',
      'env pull',
      'runtimes ls',
      'runtimes get',
      'checks ls',
      'checks get',
      'checks create',
      'checks rm',
      'check-groups ls',
      'check-groups get',
      'check-groups create',
      'check-groups rm',
      'analytics',
      'metrics',
      'alert-channels ls',
      'alert-channels get',
      'alert-channels create',
      'alert-channels test',
      'alert-channels deliveries',
      'results send',
      'simulate',
      'admin create-account',
      'api',
      'deploy',
      'test',
    ]) {
      expect(names).toContain(expected);
    }
  });
});

describe('.env quoting', () => {
  const cases = [
    '',
    'plain',
    'with space',
    '#hash',
    "it's",
    'say "hi"',
    `both ' and "`,
    'a\nb',
    'tab\there',
    '$HOME ${X} `cmd`',
    'back\\slash',
    'literal \\n text',
    ' padded ',
    'x=y',
  ];
  it('Node reads back exactly what was written', () => {
    const lines = cases.map((value, index) => dotenvLine(`K${index}`, value));
    expect(lines.every((line) => line !== undefined)).toBe(true);
    const parsed = parseEnv(lines.join('\n') + '\n');
    expect(cases.map((_, index) => parsed[`K${index}`])).toEqual(cases);
  });

  it('refuses a value that holds all three quote characters', () => {
    expect(dotenvLine('K', `' " \``)).toBeUndefined();
  });
});

describe('check types', () => {
  it('accepts the spellings people use', () => {
    expect(['api', 'API', 'api-checks'].map(analyticsKind)).toEqual(['api-checks', 'api-checks', 'api-checks']);
    expect(analyticsKind('MULTI_STEP')).toBe('multistep-checks');
    expect(analyticsKind('url')).toBe('url-monitors');
    expect(analyticsKind('url-monitors')).toBe('url-monitors');
    expect(shortCheckType('Heartbeat')).toBe('heartbeat');
    expect(() => shortCheckType('ftp')).toThrow(/unknown check type/);
  });
});

describe('analytics rows', () => {
  it('one row per data point, group fields first, then time, then metrics in metadata order', () => {
    const result = analyticsSchema.parse({
      checkId: 'c',
      name: 'n',
      checkType: 'API',
      from: 'f',
      to: 't',
      series: [
        {
          runLocation: 'eu-west-1',
          data: [
            { timestamp: 'T1', availability: 100, responseTime_avg: 120.12345 },
            { timestamp: 'T2', availability: null, responseTime_avg: null },
          ],
        },
        { runLocation: 'us-east-1', data: [{ timestamp: 'T1', availability: 50, responseTime_avg: 300 }] },
      ],
      metadata: {
        responseTime_avg: { unit: 'milliseconds', label: 'Avg', aggregation: 'avg' },
        availability: { unit: 'percentage', label: 'A', aggregation: 'avg' },
      },
    });
    const { columns, rows } = flatten(result);
    expect(columns).toEqual(['runLocation', 'timestamp', 'responseTime_avg', 'availability']);
    expect(rows).toHaveLength(3);
    expect(rows[2]).toEqual({ runLocation: 'us-east-1', timestamp: 'T1', availability: 50, responseTime_avg: 300 });
  });

  it('CSV quotes what needs quoting', () => {
    expect(csvLine(['a', 'b,c', 'say "x"', null, 1.5, 'l1\nl2'])).toBe('a,"b,c","say ""x""",,1.5,"l1\nl2"');
  });
});

describe('analytics rounding', () => {
  it("rounds to the catalogue's precision, a family sharing it, three decimals when the catalogue is silent", () => {
    const round = rounding(
      new Map([
        ['responseTime_avg', 2],
        ['responseTime_*', 2],
        ['CLS_avg', 3],
        ['CLS_*', 3],
        ['availability', 0],
      ]),
    );
    expect(round('responseTime_avg', 100.666666)).toBe(100.67);
    expect(round('responseTime_p95', 99.994)).toBe(99.99);
    expect(round('CLS_p75', 0.12345)).toBe(0.123);
    expect(round('availability', 99.6)).toBe(100);
    expect(round('unknown_metric', 1.23456)).toBe(1.235);
    expect(round('responseTime_avg', 275)).toBe(275);
    expect(round('runLocation', 'eu-west-1')).toBe('eu-west-1');
    expect(round('responseTime_avg', null)).toBe(null);
  });
});
