import { useEffect, useState } from 'preact/hooks';
import { ApiError, call } from '../api.ts';
import type { CheckRun, Runtime } from '../api.gen.ts';
import { errorOutsideFields, Field } from '../components/field.tsx';
import { ScriptFields } from '../components/script-fields.tsx';
import { TestRun } from '../components/test-run.tsx';
import { navigate } from '../router.ts';
import {
  COMPARISONS,
  empty,
  FREQUENCIES,
  fromCheck,
  SOURCES,
  STARTERS,
  toBody,
  TYPES,
  usesScript,
  type Form,
} from './editor-form.ts';

/** Create or edit a check of any runner type, with an assertion builder and a "Run" that stores nothing. */
export function EditorPage({ checkId }: { checkId?: string }) {
  const [form, setForm] = useState<Form>(empty);
  const [error, setError] = useState<ApiError | null>(null);
  const [run, setRun] = useState<CheckRun | null>(null);
  const [busy, setBusy] = useState(false);
  const [runtimes, setRuntimes] = useState<Runtime[]>([]);
  const [variables, setVariables] = useState<string[]>([]);
  useEffect(() => {
    if (checkId) void call('GET /v1/checks/{id}', { params: { id: checkId } }).then((c) => setForm(fromCheck(c)));
  }, [checkId]);
  const scripted = usesScript(form);
  useEffect(() => {
    // Only a script needs them: the runtime list and the variable names offered after process.env.
    if (!scripted || runtimes.length > 0) return;
    void call('GET /v1/runtimes').then(setRuntimes, () => undefined);
    void call('GET /v1/variables', { query: { limit: 100 } }).then(
      (vars) => setVariables(vars.map((v) => v.key)),
      () => undefined,
    );
  }, [scripted]);
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
  const fields = ['name', 'frequency', 'locations', 'tags', 'request', 'heartbeat', 'browser', 'script', 'runtimeId'];
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
              onChange={(e) => {
                const type = (e.target as HTMLSelectElement).value as Form['checkType'];
                set('checkType', type);
                // A new script check starts from a working example rather than an empty file.
                if (type in STARTERS && type !== 'BROWSER' && !form.script)
                  set('script', STARTERS[type as keyof typeof STARTERS]);
              }}
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
          <ScriptFields form={form} set={set} error={error} runtimes={runtimes} variables={variables} />
          {(form.checkType === 'API' ||
            form.checkType === 'URL' ||
            (form.checkType === 'BROWSER' && form.browserMode === 'url')) && (
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
              {busy && scripted ? 'Running…' : 'Run'}
            </button>
            <button class="primary" type="submit" disabled={busy}>
              Save
            </button>
          </div>
        </form>
        <section aria-labelledby="run-result" aria-live="polite">
          <h2 id="run-result">Test run</h2>
          {!run && (
            <p class="muted">
              "Run" executes this definition once, from the first location, and stores nothing.
              {scripted && ' A script runs in its runtime’s sandbox and may take up to its time budget.'}
            </p>
          )}
          {run && <TestRun run={run} />}
        </section>
      </div>
    </>
  );
}
