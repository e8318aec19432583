import Table from 'cli-table3';
import pc from 'picocolors';
import { CliError } from './errors.ts';

/** Colour only on a terminal; picocolors also honours NO_COLOR and FORCE_COLOR there. */
export function colors(stream: NodeJS.WriteStream) {
  return pc.createColors(pc.isColorSupported && stream.isTTY === true);
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

export interface Output {
  json: boolean;
  /** --json prints `data`; otherwise `human` prints the human form. */
  result(data: unknown, human: () => void): void;
  print(text: string): void;
  table<T>(rows: readonly T[], columns: readonly Column<T>[]): void;
  /** One object as two aligned columns, field and value. */
  record(fields: ReadonlyArray<[string, unknown]>): void;
  info(text: string): void;
  warn(text: string): void;
  error(text: string): void;
}

// No borders: the columns stay aligned and the output still greps, cuts and awks well.
const plainChars = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/** One field of a result, by dot path (`id`, `account.id`); strings print bare, for `$(…)` in scripts. */
function pick(data: unknown, path: string): string {
  let value: unknown = data;
  for (const part of path.split('.')) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  if (value === undefined) throw new CliError(`--get ${path}: the result has no such field`);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function createOutput(json: boolean, get?: string): Output {
  const out = colors(process.stdout);
  const err = colors(process.stderr);
  const render = (head: string[], rows: string[][]): string => {
    const table = new Table({
      head: head.map((h) => out.bold(h)),
      chars: plainChars,
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    });
    table.push(...rows);
    return table
      .toString()
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n');
  };
  const print = (text: string) => process.stdout.write(text + '\n');
  return {
    json,
    result(data, human) {
      if (get !== undefined) print(pick(data, get));
      else if (json) print(JSON.stringify(data, null, 2));
      else human();
    },
    print,
    table(rows, columns) {
      if (rows.length === 0) {
        process.stderr.write(err.dim('(none)') + '\n');
        return;
      }
      print(
        render(
          columns.map((c) => c.header),
          rows.map((row) => columns.map((c) => cell(c.value(row), out.dim))),
        ),
      );
    },
    record(fields) {
      const table = new Table({
        chars: plainChars,
        style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
      });
      for (const [name, value] of fields) table.push([out.bold(name), cell(value, out.dim)]);
      print(
        table
          .toString()
          .split('\n')
          .map((line) => line.trimEnd())
          .join('\n'),
      );
    },
    info(text) {
      process.stderr.write(text + '\n');
    },
    warn(text) {
      process.stderr.write(err.yellow(`Warning: ${text}`) + '\n');
    },
    error(text) {
      process.stderr.write(err.red(`Error: ${text}`) + '\n');
    },
  };
}

export function cell(value: unknown, dim: (text: string) => string = (text) => text): string {
  if (value === null || value === undefined || value === '') return dim('-');
  if (Array.isArray(value))
    return value.length === 0
      ? dim('-')
      : value.map((item) => (typeof item === 'object' ? JSON.stringify(item) : String(item))).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** RFC 4180: quote when needed, double the quotes. */
export function csvLine(values: readonly unknown[]): string {
  return values
    .map((value) => {
      const text =
        value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
      return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    })
    .join(',');
}
