import { domainToASCII } from 'node:url';

/** Replaces {{NAME}} with the variable's value; unknown names stay as written. */
export function substitute(text: string, variables: Record<string, string>): string {
  return text.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(variables, name) ? (variables[name] as string) : whole,
  );
}

export const SCRUBBED = '********';

/** Values shown to users are cut to this many characters. */
export const SHOWN_MAX = 200;

export interface Scrubber {
  /** The text with every form of every secret replaced by SCRUBBED. */
  (text: string): string;
  /**
   * Scrubs, then cuts to `max` characters: only characters before the cut are kept, and a secret
   * that crosses the cut is replaced whole, so no prefix of it is left.
   */
  shorten(text: string, max?: number): string;
}

// How the URL parser writes one character in each part of a URL. Asked of the parser itself, so
// the forms match what `new URL(...).href` prints in errors, whatever its percent-encode sets are.
type UrlPart = 'path' | 'query' | 'userinfo' | 'fragment';
const PARSED: Record<UrlPart, (char: string) => string | undefined> = {
  path: (char) => new URL(`http://h/${char}`).pathname.slice(1),
  query: (char) => new URL(`http://h/?${char}`).search.slice(1),
  userinfo: (char) => new URL(`http://${char}@h/`).username,
  fragment: (char) => new URL(`http://h/#${char}`).hash.slice(1),
};
const charForms = new Map<string, string>();

function inUrlPart(value: string, part: UrlPart): string {
  let out = '';
  for (const char of value) {
    const key = `${part}:${char}`;
    let form = charForms.get(key);
    if (form === undefined) {
      try {
        form = PARSED[part](char) ?? char;
      } catch {
        form = char;
      }
      // The parser drops tabs and newlines. A character that changes the URL's structure
      // (/, ?, #, @) splits the secret anyway: it stays as written.
      if (/^[\t\n\r]$/.test(char)) form = '';
      else if (form === '' || form.length > 12) form = char;
      charForms.set(key, form);
    }
    out += form;
  }
  return out;
}

/** The value as written at the start of a URL's path (or query), where the parser may split it. */
function urlTail(value: string, lead: '' | '?'): string {
  const prefix = `http://h/${lead}`;
  const href = new URL(`${prefix}${value}`).href;
  return href.startsWith(prefix) ? href.slice(prefix.length) : value;
}

/** Encodings into URLs and forms; each also in lower-case hex. */
const ENCODINGS: ReadonlyArray<(value: string) => string> = [
  encodeURIComponent,
  encodeURI,
  // application/x-www-form-urlencoded, as URLSearchParams writes query parameters (+ for space).
  (value) => new URLSearchParams([['', value]]).toString().slice(1),
  (value) => inUrlPart(value, 'path'),
  (value) => inUrlPart(value, 'query'),
  (value) => inUrlPart(value, 'userinfo'),
  (value) => inUrlPart(value, 'fragment'),
  // The parser's own output where the secret ends the URL: it also trims trailing spaces there.
  (value) => urlTail(value, ''),
  // An empty query is not sent: a secret ending in ? reaches the target without it.
  (value) => urlTail(value, '').replace(/\?$/, ''),
  (value) => urlTail(value, '?'),
];

const base64 = (bytes: Buffer) => bytes.toString('base64');

/**
 * base64 of the secret at each of the three alignments it can have inside a longer value (a JWT,
 * `user:secret`): the characters made of the secret's bytes only.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value);
  const forms = [base64(bytes), base64(bytes).replace(/=+$/, '')];
  for (let skip = 1; skip <= 2; skip++) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole >= 3) forms.push(base64(bytes.subarray(skip, skip + whole)));
  }
  return forms;
}

/** Every form of one secret the runner (or a target echoing what it sent) may print. */
export function secretForms(value: string): string[] {
  if (value === '') return [];
  // As written, and as a hostname: lower-cased and IDNA-encoded by the URL parser.
  const plain = [value, value.toLowerCase(), domainToASCII(value)];
  for (const encode of ENCODINGS) {
    let encoded: string;
    try {
      encoded = encode(value);
    } catch {
      continue; // encodeURI throws on a lone surrogate, URL on what is no URL
    }
    plain.push(
      encoded,
      encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    );
  }
  const forms = new Set<string>();
  for (const form of plain) {
    forms.add(form);
    // As a JSON string's content (a JSON body or answer echoing it).
    forms.add(JSON.stringify(form).slice(1, -1));
  }
  for (const form of base64Forms(value)) forms.add(form);
  forms.delete('');
  return [...forms];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One pattern for all forms, as a trie: forms of one secret share long prefixes, and a trie keeps
 * the work at each position of a text from growing with every near-duplicate. Built from the
 * sorted forms (a range of them shares a prefix); greedy `(?:…)?` makes the match at a position
 * the longest form there. Characters are UTF-16 units, as the pattern has no u flag.
 */
function triePattern(sorted: readonly string[], from = 0, to = sorted.length, depth = 0): string {
  const first = sorted[from] as string;
  const last = sorted[to - 1] as string;
  let shared = depth;
  while (shared < first.length && shared < last.length && first[shared] === last[shared]) shared++;
  const literal = escapeRegExp(first.slice(depth, shared));
  // Sorted and without duplicates, a form that ends here comes first in its range.
  const ends = first.length === shared;
  const start = ends ? from + 1 : from;
  if (start === to) return literal;
  const branches: string[] = [];
  for (let i = start; i < to;) {
    let j = i + 1;
    while (j < to && (sorted[j] as string)[shared] === (sorted[i] as string)[shared]) j++;
    branches.push(triePattern(sorted, i, j, shared));
    i = j;
  }
  const body = branches.length === 1 ? (branches[0] as string) : `(?:${branches.join('|')})`;
  return literal + (ends ? `(?:${body})?` : body);
}

/**
 * Removes every secret from text a probe outputs, in every encoding the runner produces: URL,
 * form and percent-encoding (either hex case), lower case and IDNA (hostnames), JSON escaping, and
 * base64, also of `credentials` the runner assembled from secrets (basic auth `user:password`).
 * The forms are computed once; each text is then matched in one pass of one regular expression.
 */
export function createScrubber(secretValues: readonly string[], credentials: readonly string[] = []): Scrubber {
  const forms = new Set<string>();
  for (const value of secretValues) for (const form of secretForms(value)) forms.add(form);
  for (const credential of credentials) {
    if (!secretValues.some((value) => value !== '' && credential.includes(value))) continue;
    for (const form of base64Forms(credential)) forms.add(form);
  }
  forms.delete('');
  const longest = Math.max(0, ...[...forms].map((form) => form.length));
  const pattern = forms.size === 0 ? undefined : new RegExp(triePattern([...forms].sort()), 'g');

  /** The text with secrets masked, keeping only characters before `limit` (and secrets that cross it whole). */
  const mask = (text: string, limit: number): string => {
    if (!pattern) return text.slice(0, limit);
    // Any form starting before `limit` ends within `limit + longest`.
    const region = limit >= text.length ? text : text.slice(0, limit + longest);
    let out = '';
    let kept = 0; // text before this index is already in `out`
    let end = -1; // end of the masked run being extended
    pattern.lastIndex = 0;
    for (let match = pattern.exec(region); match; match = pattern.exec(region)) {
      const start = match.index;
      if (start >= limit) break;
      const stop = start + match[0].length;
      if (start < end) end = Math.max(end, stop);
      else {
        if (end >= 0) out += SCRUBBED;
        out += region.slice(kept, start);
        end = stop;
      }
      kept = end;
      // Overlapping forms count too: look again one character later, not after the match.
      pattern.lastIndex = start + 1;
    }
    if (end >= 0) out += SCRUBBED;
    return out + region.slice(kept, Math.max(kept, Math.min(limit, region.length)));
  };

  const scrub = ((text: string) => mask(text, text.length)) as Scrubber;
  scrub.shorten = (text, max = SHOWN_MAX) => {
    const cut = text.length > max;
    const masked = mask(text, max);
    return masked.length > max || cut ? `${masked.slice(0, max)}…` : masked;
  };
  return scrub;
}

/** Cuts a value shown to users; scrub first (Scrubber.shorten) when it may hold a secret. */
export function shorten(text: string, max = SHOWN_MAX): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
