import { useEffect, useState } from 'preact/hooks';
import { ApiError, call } from '../api.ts';
import type { Check, CheckRun, Operations } from '../api.gen.ts';
import { errorOutsideFields, Field } from '../components/field.tsx';
import { navigate } from '../router.ts';

type CheckBody = Operations['POST /v1/checks']['body'];
type Assertion = { source: string; property?: string; comparison: string; target?: string };

const TYPES = ['API', 'URL', 'TCP', 'DNS', 'HEARTBEAT', 'BROWSER'] as const;
const SOURCES: Record<string, string[]> = {
  API: ['STATUS_CODE', 'JSON_BODY', 'TEXT_BODY', 'HEADERS', 'RESPONSE_TIME'],
  URL: ['STATUS_CODE'],
  TCP: ['RESPONSE_DATA', 'RESPONSE_TIME'],
  DNS: ['RESPONSE_CODE', 'TEXT_ANSWER', 'JSON_ANSWER', 'RESPONSE_TIME'],
};
const COMPARISONS = [
  'EQUALS',
  'NOT_EQUALS',
  'HAS_KEY',
  'NOT_HAS_KEY',
  'HAS_VALUE',
  'NOT_HAS_VALUE',
  'IS_EMPTY',
  'NOT_EMPTY',
  'GREATER_THAN',
  'LESS_THAN',
  'CONTAINS',
  'NOT_CONTAINS',
  'IS_NULL',
  'NOT_NULL',
];
const FREQUENCIES = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440];

interface Form {
  name: string;
  checkType: (typeof TYPES)[number];
  frequency: number;
  locations: string;
  tags: string;
  activated: boolean;
  url: string;
  method: string;
  headers: string;
  body: string;
  hostname: string;
  port: string;
  query: string;
  recordType: string;
  nameServer: string;
  period: string;
  periodUnit: string;
  grace: string;
  graceUnit: string;
  assertions: Assertion[];
}

const empty: Form = {
  name: '',
  checkType: 'API',
  frequency: 10,
  locations: '',
  tags: '',
  activated: true,
  url: '',
  method: 'GET',
  headers: '',
  body: '',
  hostname: '',
  port: '443',
  query: '',
  recordType: 'A',
  nameServer: '',
  period: '5',
  periodUnit: 'minutes',
  grace: '1',
  graceUnit: 'minutes',
  assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
};

function fromCheck(c: Check): Form {
  // The definition's shape depends on the type; the form reads what is there.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const any = c as Record<string, any>;
  const req = any.request ?? {};
  return {
    ...empty,
    name: c.name,
    checkType: c.checkType as Form['checkType'],
    frequency: c.frequency,
    activated: c.activated,
    locations: c.locations.join(', '),
    tags: c.tags.join(', '),
    url: req.url ?? any.browser?.url ?? '',
    method: req.method ?? 'GET',
    headers: (req.headers ?? []).map((h: { key: string; value: string }) => `${h.key}: ${h.value}`).join('\n'),
    body: req.body ?? '',
    hostname: req.hostname ?? '',
    port: String(req.port ?? 443),
    query: req.query ?? '',
    recordType: req.recordType ?? 'A',
    nameServer: req.nameServer ?? '',
    period: String(any.heartbeat?.period ?? 5),
    periodUnit: any.heartbeat?.periodUnit ?? 'minutes',
    grace: String(any.heartbeat?.grace ?? 1),
    graceUnit: any.heartbeat?.graceUnit ?? 'minutes',
    assertions: req.assertions ?? [],
  };
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function toBody(f: Form): CheckBody {
  const common = {
    name: f.name,
    frequency: f.frequency as 10,
    locations: list(f.locations),
    tags: list(f.tags),
    activated: f.activated,
  };
  const assertions = f.assertions.map((a) => ({ ...a, property: a.property || undefined })) as never;
  switch (f.checkType) {
    case 'API':
      return {
        ...common,
        checkType: 'API',
        request: {
          url: f.url,
          method: f.method as 'GET',
          body: f.body || undefined,
          headers: f.headers
            .split('\n')
            .filter((l) => l.includes(':'))
            .map((l) => ({ key: l.slice(0, l.indexOf(':')).trim(), value: l.slice(l.indexOf(':') + 1).trim() })),
          assertions,
        },
      };
    case 'URL':
      return { ...common, checkType: 'URL', request: { url: f.url, assertions } };
    case 'TCP':
      return {
        ...common,
        checkType: 'TCP',
        request: { hostname: f.hostname, port: Number(f.port), assertions },
      } as CheckBody;
    case 'DNS':
      return {
        ...common,
        checkType: 'DNS',
        request: { query: f.query, recordType: f.recordType as 'A', nameServer: f.nameServer || undefined, assertions },
      } as CheckBody;
    case 'HEARTBEAT':
      return {
        ...common,
        checkType: 'HEARTBEAT',
        heartbeat: {
          period: Number(f.period),
          periodUnit: f.periodUnit as 'minutes',
          grace: Number(f.grace),
          graceUnit: f.graceUnit as 'minutes',
        },
      } as CheckBody;
    case 'BROWSER':
      return { ...common, checkType: 'BROWSER', browser: { url: f.url } } as CheckBody;
  }
}

/** Create or edit a check of any runner type, with an assertion builder and a "Run" that stores nothing. */
export function EditorPage({ checkId }: { checkId?: string }) {
  const [form, setForm] = useState<Form>(empty);
  const [error, setError] = useState<ApiError | null>(null);
  const [run, setRun] = useState<CheckRun | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (checkId) void call('GET /v1/checks/{id}', { params: { id: checkId } }).then((c) => setForm(fromCheck(c)));
  }, [checkId]);
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((f) => ({ ...f, [key]: value }));
  const input = (key: keyof Form, props: Record<string, unknown> = {}) => (
    <input
      name={key}
      value={String(form[key])}
      onInput={(e) => set(key, (e.target as HTMLInputElement).value as never)}
      {...props}
    />
  );
  const act = async (what: 'save' | 'run') => {
    setBusy(true);
    setError(null);
    try {
      if (what === 'run') setRun(await call('POST /v1/checks/test', { body: toBody(form) }));
      else {
        const saved = checkId
          ? await call('PUT /v1/checks/{id}', { params: { id: checkId }, body: toBody(form) })
          : await call('POST /v1/checks', { body: toBody(form) });
        navigate(`/checks/${saved.id}`);
      }
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, (e as Error).message));
    } finally {
      setBusy(false);
    }
  };
  const sources = SOURCES[form.checkType];
  const fields = ['name', 'frequency', 'locations', 'tags', 'request', 'heartbeat', 'browser'];
  return (
    <>
      <h1>{checkId ? `Edit ${form.name}` : 'New check'}</h1>
      <div class="grid two">
        <form
          class="grid"
          onSubmit={(e) => {
            e.preventDefault();
            void act('save');
          }}
        >
          <Field label="Type" name="checkType" error={error}>
            <select
              name="checkType"
              value={form.checkType}
              disabled={!!checkId}
              onChange={(e) => set('checkType', (e.target as HTMLSelectElement).value as Form['checkType'])}
            >
              {TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </Field>
          <Field label="Name" name="name" error={error}>
            {input('name')}
          </Field>
          <div class="grid two">
            <Field label="Frequency (minutes)" name="frequency" error={error}>
              <select
                name="frequency"
                value={form.frequency}
                onChange={(e) => set('frequency', Number((e.target as HTMLSelectElement).value))}
              >
                {FREQUENCIES.map((f) => (
                  <option key={f} value={f}>
                    {f}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Locations (comma-separated)" name="locations" error={error}>
              {input('locations')}
            </Field>
          </div>
          <Field label="Tags (comma-separated)" name="tags" error={error}>
            {input('tags')}
          </Field>
          {(form.checkType === 'API' || form.checkType === 'URL' || form.checkType === 'BROWSER') && (
            <Field label="URL" name={form.checkType === 'BROWSER' ? 'browser' : 'request'} error={error}>
              {input('url', { placeholder: 'https://…' })}
            </Field>
          )}
          {form.checkType === 'API' && (
            <>
              <label>
                Method
                <select
                  name="method"
                  value={form.method}
                  onChange={(e) => set('method', (e.target as HTMLSelectElement).value)}
                >
                  {['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              </label>
              <label>
                Headers (one "Name: value" per line; {'{{VAR}}'} uses a variable)
                <textarea
                  name="headers"
                  rows={3}
                  value={form.headers}
                  onInput={(e) => set('headers', (e.target as HTMLTextAreaElement).value)}
                />
              </label>
              <label>
                Body
                <textarea
                  name="body"
                  rows={3}
                  value={form.body}
                  onInput={(e) => set('body', (e.target as HTMLTextAreaElement).value)}
                />
              </label>
            </>
          )}
          {form.checkType === 'TCP' && (
            <div class="grid two">
              <Field label="Host" name="request" error={error}>
                {input('hostname')}
              </Field>
              <label>Port{input('port', { type: 'number' })}</label>
            </div>
          )}
          {form.checkType === 'DNS' && (
            <div class="grid two">
              <Field label="Query" name="request" error={error}>
                {input('query')}
              </Field>
              <label>
                Record type
                <select
                  value={form.recordType}
                  onChange={(e) => set('recordType', (e.target as HTMLSelectElement).value)}
                >
                  {['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA'].map((t) => (
                    <option key={t}>{t}</option>
                  ))}
                </select>
              </label>
              <label>Name server (optional){input('nameServer')}</label>
            </div>
          )}
          {form.checkType === 'HEARTBEAT' && (
            <div class="grid two">
              <Field label="Period" name="heartbeat" error={error}>
                {input('period', { type: 'number' })}
              </Field>
              <label>
                Unit
                <select
                  value={form.periodUnit}
                  onChange={(e) => set('periodUnit', (e.target as HTMLSelectElement).value)}
                >
                  {['seconds', 'minutes', 'hours', 'days'].map((u) => (
                    <option key={u}>{u}</option>
                  ))}
                </select>
              </label>
              <label>Grace{input('grace', { type: 'number' })}</label>
              <label>
                Grace unit
                <select
                  value={form.graceUnit}
                  onChange={(e) => set('graceUnit', (e.target as HTMLSelectElement).value)}
                >
                  {['seconds', 'minutes', 'hours', 'days'].map((u) => (
                    <option key={u}>{u}</option>
                  ))}
                </select>
              </label>
            </div>
          )}
          {sources && (
            <fieldset class="grid">
              <legend>Assertions</legend>
              {form.assertions.map((a, i) => (
                <div class="row" key={i} data-assertion={i}>
                  <select
                    aria-label={`Assertion ${i + 1} source`}
                    value={a.source}
                    onChange={(e) =>
                      set(
                        'assertions',
                        form.assertions.map((x, j) =>
                          j === i ? { ...x, source: (e.target as HTMLSelectElement).value } : x,
                        ),
                      )
                    }
                  >
                    {sources.map((s) => (
                      <option key={s}>{s}</option>
                    ))}
                  </select>
                  <input
                    aria-label={`Assertion ${i + 1} property`}
                    placeholder="property"
                    value={a.property ?? ''}
                    onInput={(e) =>
                      set(
                        'assertions',
                        form.assertions.map((x, j) =>
                          j === i ? { ...x, property: (e.target as HTMLInputElement).value } : x,
                        ),
                      )
                    }
                  />
                  <select
                    aria-label={`Assertion ${i + 1} comparison`}
                    value={a.comparison}
                    onChange={(e) =>
                      set(
                        'assertions',
                        form.assertions.map((x, j) =>
                          j === i ? { ...x, comparison: (e.target as HTMLSelectElement).value } : x,
                        ),
                      )
                    }
                  >
                    {COMPARISONS.map((c) => (
                      <option key={c}>{c}</option>
                    ))}
                  </select>
                  <input
                    aria-label={`Assertion ${i + 1} target`}
                    placeholder="target"
                    value={a.target ?? ''}
                    onInput={(e) =>
                      set(
                        'assertions',
                        form.assertions.map((x, j) =>
                          j === i ? { ...x, target: (e.target as HTMLInputElement).value } : x,
                        ),
                      )
                    }
                  />
                  <button
                    type="button"
                    aria-label={`Remove assertion ${i + 1}`}
                    onClick={() =>
                      set(
                        'assertions',
                        form.assertions.filter((_, j) => j !== i),
                      )
                    }
                  >
                    ✕
                  </button>
                </div>
              ))}
              <button
                type="button"
                onClick={() =>
                  set('assertions', [...form.assertions, { source: sources[0]!, comparison: 'EQUALS', target: '' }])
                }
              >
                Add assertion
              </button>
            </fieldset>
          )}
          {errorOutsideFields(error, fields) && (
            <p class="error-box" role="alert">
              {error!.message}
            </p>
          )}
          <div class="row">
            <button type="button" disabled={busy} onClick={() => void act('run')}>
              Run
            </button>
            <button class="primary" type="submit" disabled={busy}>
              Save
            </button>
          </div>
        </form>
        <section aria-labelledby="run-result" aria-live="polite">
          <h2 id="run-result">Test run</h2>
          {!run && (
            <p class="muted">"Run" executes this definition once, from the first location, and stores nothing.</p>
          )}
          {run && (
            <div class="card grid" data-testid="test-run">
              <p>
                <span class={`status-text ${run.result.hasFailures ? 'failing' : 'passing'}`}>
                  {run.result.hasFailures ? 'Failed' : 'Passed'}
                </span>{' '}
                in {Math.round(run.result.responseTime)} ms
                {run.result.statusCode ? ` · HTTP ${run.result.statusCode}` : ''}
              </p>
              <ul>
                {run.assertions.map((a, i) => (
                  <li key={i} data-outcome={a.passed ? 'passed' : 'failed'}>
                    {a.passed ? '✓' : '✗'}{' '}
                    <code>
                      {a.assertion.source} {a.assertion.property ?? ''} {a.assertion.comparison}{' '}
                      {a.assertion.target ?? ''}
                    </code>{' '}
                    — actual {a.actual}
                  </li>
                ))}
              </ul>
              {run.result.errorMessage && <pre class="error-box">{run.result.errorMessage}</pre>}
            </div>
          )}
        </section>
      </div>
    </>
  );
}
