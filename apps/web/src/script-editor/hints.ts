/**
 * Type hints for check scripts: the members of Playwright's `test`, `expect`, `page`, `request`
 * and an APIResponse, as a short list per receiver. Not a type checker: a few hundred bytes that
 * cover what a check script calls, instead of shipping Playwright's .d.ts files to the browser.
 */
export interface Hint {
  label: string;
  detail: string;
  type: 'function' | 'method' | 'property' | 'variable' | 'keyword';
}

const m = (label: string, detail: string): Hint => ({ label, detail, type: 'method' });
const p = (label: string, detail: string): Hint => ({ label, detail, type: 'property' });

const TEST: Hint[] = [
  m('step', '(title, async () => …) → Promise: a named step of the result'),
  m('describe', '(title, () => …): group tests'),
  m('beforeEach', '(async ({ page, request }) => …)'),
  m('afterEach', '(async ({ page, request }) => …)'),
  m('beforeAll', '(async () => …)'),
  m('afterAll', '(async () => …)'),
  m('skip', '(title?, …): skip a test'),
  m('fail', '(): this test is expected to fail'),
  m('slow', '(): triple the timeout'),
  m('setTimeout', '(ms): this test’s timeout'),
  m('info', '() → TestInfo'),
  m('use', '({ … }): fixture options'),
  m('only', '(title, async ({ … }) => …)'),
];

const EXPECT_STATIC: Hint[] = [
  m('soft', '(value): an assertion that fails the test but lets it go on'),
  m('poll', '(() => value, { timeout }): retry until it passes'),
  m('configure', '({ timeout, soft })'),
];

const MATCHERS: Hint[] = [
  p('not', 'negates the next matcher'),
  m('toBe', '(expected): Object.is equality'),
  m('toEqual', '(expected): deep equality'),
  m('toStrictEqual', '(expected): deep equality, types too'),
  m('toBeTruthy', '()'),
  m('toBeFalsy', '()'),
  m('toBeDefined', '()'),
  m('toBeUndefined', '()'),
  m('toBeNull', '()'),
  m('toContain', '(item or substring)'),
  m('toHaveLength', '(n)'),
  m('toHaveProperty', '(path, value?)'),
  m('toMatch', '(regexp or string)'),
  m('toMatchObject', '(subset)'),
  m('toBeGreaterThan', '(n)'),
  m('toBeLessThan', '(n)'),
  m('toBeCloseTo', '(n, digits?)'),
  m('toThrow', '(error?)'),
  m('toBeOK', '(): an APIResponse with a 2xx status'),
  m('toBeVisible', '(): a locator is visible'),
  m('toBeHidden', '()'),
  m('toBeEnabled', '()'),
  m('toBeChecked', '()'),
  m('toHaveText', '(text or regexp)'),
  m('toContainText', '(text)'),
  m('toHaveValue', '(value)'),
  m('toHaveAttribute', '(name, value?)'),
  m('toHaveCount', '(n)'),
  m('toHaveURL', '(url or regexp): the page’s URL'),
  m('toHaveTitle', '(title or regexp): the page’s title'),
];

const PAGE: Hint[] = [
  m('goto', '(url, { waitUntil? }) → Promise<Response | null>'),
  m('locator', '(selector) → Locator'),
  m('getByRole', '(role, { name? }) → Locator'),
  m('getByText', '(text) → Locator'),
  m('getByLabel', '(text) → Locator'),
  m('getByPlaceholder', '(text) → Locator'),
  m('getByTestId', '(id) → Locator'),
  m('click', '(selector)'),
  m('fill', '(selector, value)'),
  m('press', '(selector, key)'),
  m('title', '() → Promise<string>'),
  m('url', '() → string'),
  m('content', '() → Promise<string>'),
  m('waitForURL', '(url or regexp)'),
  m('waitForSelector', '(selector)'),
  m('waitForLoadState', '(state?)'),
  m('waitForResponse', '(url or predicate)'),
  m('screenshot', '({ path? })'),
  m('evaluate', '(fn, arg?) → Promise<result>'),
  m('reload', '()'),
  p('request', 'APIRequestContext sharing the page’s cookies'),
  p('keyboard', 'Keyboard'),
  p('mouse', 'Mouse'),
];

const REQUEST: Hint[] = [
  m('get', '(url, { headers?, params? }) → Promise<APIResponse>'),
  m('post', '(url, { data?, form?, headers? }) → Promise<APIResponse>'),
  m('put', '(url, { data?, headers? }) → Promise<APIResponse>'),
  m('patch', '(url, { data?, headers? }) → Promise<APIResponse>'),
  m('delete', '(url, { headers? }) → Promise<APIResponse>'),
  m('head', '(url) → Promise<APIResponse>'),
  m('fetch', '(url or request, { method?, data? }) → Promise<APIResponse>'),
];

const RESPONSE: Hint[] = [
  m('status', '() → number'),
  m('statusText', '() → string'),
  m('ok', '() → boolean: status is 2xx'),
  m('json', '() → Promise<any>'),
  m('text', '() → Promise<string>'),
  m('body', '() → Promise<Buffer>'),
  m('headers', '() → Record<string, string>'),
  m('url', '() → string'),
];

const GLOBALS: Hint[] = [
  { label: 'test', detail: "from '@playwright/test'", type: 'function' },
  { label: 'expect', detail: "from '@playwright/test'", type: 'function' },
  { label: 'page', detail: 'fixture: a browser page (PLAYWRIGHT and BROWSER checks)', type: 'variable' },
  { label: 'request', detail: 'fixture: APIRequestContext, every call is recorded', type: 'variable' },
  { label: 'process', detail: 'process.env holds the check’s variables', type: 'variable' },
];

/** Receivers by the expression before the dot; a variable named response/res/resp reads as an APIResponse. */
const RECEIVERS: Array<[RegExp, Hint[]]> = [
  [/(?:^|[^\w.$])test$/, TEST],
  [/(?:^|[^\w.$])expect$/, EXPECT_STATIC],
  [/(?:^|[^\w.$])expect(?:\.soft)?\([^;]*\)(?:\.not)?$/, MATCHERS],
  [/(?:^|[^\w.$])page$/, PAGE],
  [/(?:^|[^\w.$])(?:request|page\.request)$/, REQUEST],
  [/(?:^|[^\w.$])(?:response|res|resp|\w+Response)$/, RESPONSE],
];

export interface HintMatch {
  /** How many characters before the cursor the completion replaces (the partial member name). */
  typed: number;
  options: Hint[];
}

/**
 * What to offer at the end of `before` (the line up to the cursor): members after `receiver.`,
 * variable names after `process.env.`, globals at the start of a word, nothing otherwise.
 */
export function hintsAt(before: string, variables: readonly string[] = []): HintMatch | null {
  const member = /\.([\w$]*)$/.exec(before);
  if (member) {
    const receiver = before.slice(0, member.index);
    const partial = member[1]!.length;
    if (/(?:^|[^\w.$])process\.env$/.test(receiver))
      return {
        typed: partial,
        options: variables.map((key) => ({ label: key, detail: 'check variable', type: 'property' as const })),
      };
    for (const [pattern, options] of RECEIVERS) if (pattern.test(receiver)) return { typed: partial, options };
    return null;
  }
  const word = /(?:^|[^\w.$])([A-Za-z_$][\w$]*)$/.exec(before);
  if (!word) return null;
  return { typed: word[1]!.length, options: GLOBALS };
}
