import type { TemplateIssue } from './ast.ts';

/** Handlebars' parser (jison) quotes 20 characters either side of the failing token. */
const CONTEXT = 20;

const withoutNewlines = (text: string): string => text.replace(/\n/g, '');

function lineAndColumn(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/**
 * The position of a Handlebars parse error. The parser reports only a line and a caret under a
 * 40-character excerpt with newlines removed, so the offset is found by matching that excerpt
 * back against the source; of several matches, the one nearest the reported line wins.
 */
export function parseErrorPosition(source: string, message: string): TemplateIssue | undefined {
  const [head = '', excerpt = '', caretLine = '', ...rest] = message.split('\n');
  const reported = /^(Parse|Lexical) error on line (\d+)[.:]?\s*(.*)$/.exec(head);
  if (!reported) return undefined;
  const reportedLine = Number(reported[2]);
  const detail = [reported[3], ...rest].join(' ').trim();
  let summary = `${reported[1]?.toLowerCase()} error${detail ? `: ${detail}` : ''}`;
  // The usual cause: a JSON object that ends right after a value, as in {"n": {{N}}}.
  if (detail.includes("got 'CLOSE_UNESCAPED'"))
    summary += '; "}}}" closes a "{{{"; to end a JSON object after {{X}}, add a space: {{X}} }';

  const caret = caretLine.indexOf('^');
  const before = excerpt.slice(0, Math.max(caret, 0));
  const after = excerpt.slice(Math.max(caret, 0));
  const matches = (offset: number, checkPast: boolean) => {
    const past = (offset > CONTEXT ? '...' : '') + withoutNewlines(source.slice(Math.max(0, offset - CONTEXT), offset));
    const next =
      withoutNewlines(source.slice(offset, offset + CONTEXT)) + (source.length - offset > CONTEXT ? '...' : '');
    return next === after && (!checkPast || past === before);
  };
  // The lexer's own record of what it consumed can differ from the source after a lexical
  // error (it keeps partial matches), so the second pass matches the text after the caret alone.
  const position =
    caret < 0
      ? undefined
      : (nearest(source, reportedLine, (o) => matches(o, true)) ??
        nearest(source, reportedLine, (o) => matches(o, false)));
  return { message: summary, ...(position ?? { line: reportedLine, column: 1 }) };
}

function nearest(
  source: string,
  line: number,
  test: (offset: number) => boolean,
): { line: number; column: number } | undefined {
  let best: { line: number; column: number } | undefined;
  for (let offset = 0; offset <= source.length; offset++) {
    if (!test(offset)) continue;
    const candidate = lineAndColumn(source, offset);
    if (!best || Math.abs(candidate.line - line) < Math.abs(best.line - line)) best = candidate;
  }
  return best;
}
