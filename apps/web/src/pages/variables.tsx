import { useState } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import { call, canWrite, session } from '../api.ts';
import { Field } from '../components/field.tsx';
import { useAsync } from '../hooks.ts';

/** Variables as the API shows them: locked and secret values arrive masked and stay masked. */
export function VariablesPage() {
  const vars = useAsync(() => call('GET /v1/variables', { query: { limit: 100 } }), []);
  const writable = canWrite(session());
  const [form, setForm] = useState({ key: '', value: '', locked: false, secret: false });
  const [error, setError] = useState<ApiError | null>(null);
  const [editing, setEditing] = useState<{ key: string; value: string } | null>(null);
  return (
    <>
      <h1>Variables</h1>
      {writable && (
        <form
          class="row"
          style="align-items:flex-end;margin-bottom:16px"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            try {
              await call('POST /v1/variables', { body: form });
              setForm({ key: '', value: '', locked: false, secret: false });
              vars.reload();
            } catch (err) {
              setError(err as ApiError);
            }
          }}
        >
          <Field label="Key" name="key" error={error}>
            <input
              name="key"
              value={form.key}
              onInput={(e) => setForm({ ...form, key: (e.target as HTMLInputElement).value })}
            />
          </Field>
          <Field label="Value" name="value" error={error}>
            <input
              name="value"
              type={(form.secret ? 'password' : 'text') as 'text'}
              value={form.value}
              onInput={(e) => setForm({ ...form, value: (e.target as HTMLInputElement).value })}
            />
          </Field>
          <label class="inline">
            <input
              type="checkbox"
              checked={form.locked}
              onChange={(e) => setForm({ ...form, locked: (e.target as HTMLInputElement).checked })}
            />{' '}
            Locked
          </label>
          <label class="inline">
            <input
              type="checkbox"
              checked={form.secret}
              onChange={(e) => setForm({ ...form, secret: (e.target as HTMLInputElement).checked })}
            />{' '}
            Secret
          </label>
          <button class="primary" type="submit">
            Add variable
          </button>
          {error && !error.field && (
            <p class="error-box" role="alert">
              {error.message}
            </p>
          )}
        </form>
      )}
      <table aria-label="Variables">
        <thead>
          <tr>
            <th>Key</th>
            <th>Value</th>
            <th>Flags</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(vars.data ?? []).map((v) => (
            <tr key={v.key}>
              <td>
                <code>{v.key}</code>
              </td>
              <td>
                {editing?.key === v.key ? (
                  <input
                    aria-label={`New value of ${v.key}`}
                    value={editing.value}
                    onInput={(e) => setEditing({ key: v.key, value: (e.target as HTMLInputElement).value })}
                  />
                ) : (
                  <code>{v.value}</code>
                )}
              </td>
              <td>{[v.locked && 'locked', v.secret && 'secret'].filter(Boolean).join(', ') || '–'}</td>
              <td>
                {writable && (
                  <div class="row">
                    {editing?.key === v.key ? (
                      <button
                        onClick={async () => {
                          await call('PUT /v1/variables/{key}', {
                            params: { key: v.key },
                            body: { value: editing.value, locked: v.locked } as never,
                          });
                          setEditing(null);
                          vars.reload();
                        }}
                      >
                        Save
                      </button>
                    ) : (
                      !v.secret && <button onClick={() => setEditing({ key: v.key, value: v.value })}>Edit</button>
                    )}
                    <button
                      class="danger"
                      onClick={async () => {
                        if (confirm(`Delete ${v.key}?`)) {
                          await call('DELETE /v1/variables/{key}', { params: { key: v.key } });
                          vars.reload();
                        }
                      }}
                    >
                      Delete
                    </button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
