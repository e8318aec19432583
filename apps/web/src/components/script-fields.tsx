import type { ApiError } from '../api.ts';
import type { Runtime } from '../api.gen.ts';
import { STARTERS, usesScript, type Form } from '../pages/editor-form.ts';
import { CodeEditor } from './code-editor.tsx';
import { Field } from './field.tsx';

/** The script part of the check editor: URL-or-script for BROWSER, the runtime, and the code editor. */
export function ScriptFields(props: {
  form: Form;
  set: <K extends keyof Form>(key: K, value: Form[K]) => void;
  error: ApiError | null;
  runtimes: Runtime[];
  variables: readonly string[];
}) {
  const { form, set } = props;
  const starter = STARTERS[form.checkType as keyof typeof STARTERS];
  return (
    <>
      {form.checkType === 'BROWSER' && (
        <fieldset class="row">
          <legend>The browser check</legend>
          {(['url', 'script'] as const).map((mode) => (
            <label class="inline" key={mode}>
              <input
                type="radio"
                name="browserMode"
                value={mode}
                checked={form.browserMode === mode}
                onChange={() => {
                  set('browserMode', mode);
                  if (mode === 'script' && !form.script) set('script', STARTERS.BROWSER);
                }}
              />{' '}
              {mode === 'url' ? 'opens a URL' : 'runs a Playwright script'}
            </label>
          ))}
        </fieldset>
      )}
      {usesScript(form) && (
        <>
          <Field label="Runtime" name="runtimeId" error={props.error}>
            <select
              name="runtimeId"
              value={form.runtimeId}
              onChange={(e) => set('runtimeId', (e.target as HTMLSelectElement).value)}
            >
              <option value="">The account's default</option>
              {props.runtimes
                .filter((r) => r.stage !== 'REMOVED' || r.name === form.runtimeId)
                .map((r) => (
                  <option key={r.name} value={r.name}>
                    {r.name} · Node {r.nodeJsVersion}
                    {r.dependencies['@playwright/test'] ? ` · Playwright ${r.dependencies['@playwright/test']}` : ''}
                    {r.stage === 'CURRENT' ? '' : ` (${r.stage.toLowerCase()})`}
                  </option>
                ))}
            </select>
          </Field>
          {form.files ? (
            <div data-field="files">
              <p class="muted">
                This check runs a test project of {form.files.length} files ({form.files.map((f) => f.path).join(', ')}
                ). Edit it with <code>vigil deploy</code>; saving here keeps the files as they are.
              </p>
            </div>
          ) : (
            <Field
              label="Script (a Playwright test file: TypeScript, ESM or CommonJS)"
              name="script"
              error={props.error}
            >
              <CodeEditor
                name="script"
                label="Script"
                value={form.script}
                onChange={(text) => set('script', text)}
                variables={props.variables}
              />
            </Field>
          )}
          {!form.files && starter && form.script !== starter && (
            <p class="muted">
              <button type="button" onClick={() => set('script', starter)}>
                Start from the example
              </button>{' '}
              Variables are in <code>process.env</code>; <kbd>Ctrl</kbd>+<kbd>Space</kbd> lists what <code>test</code>,{' '}
              <code>expect</code>, <code>page</code> and <code>request</code> offer.
            </p>
          )}
        </>
      )}
    </>
  );
}
