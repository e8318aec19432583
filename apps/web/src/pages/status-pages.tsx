import { useState } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import { call, canWrite, session } from '../api.ts';
import { Field } from '../components/field.tsx';
import { allChecks } from '../data.ts';
import { useAsync } from '../hooks.ts';

export function StatusPagesPage() {
  const pages = useAsync(() => call('GET /v1/status-pages'), []);
  const checks = useAsync(() => allChecks(), []);
  const writable = canWrite(session());
  const [form, setForm] = useState({ slug: '', title: '', description: '', checkIds: [] as string[] });
  const [error, setError] = useState<ApiError | null>(null);
  return (
    <>
      <h1>Status pages</h1>
      <table aria-label="Status pages">
        <thead>
          <tr>
            <th>Title</th>
            <th>Public URL</th>
            <th>Checks</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(pages.data ?? []).map((p) => (
            <tr key={p.id}>
              <td>{p.title}</td>
              <td>
                <a href={`/status/${p.slug}`} target="_blank" rel="noopener">
                  /status/{p.slug}
                </a>
              </td>
              <td>{p.checkIds.length}</td>
              <td>
                {writable && (
                  <button
                    class="danger"
                    onClick={async () => {
                      await call('DELETE /v1/status-pages/{id}', { params: { id: p.id } });
                      pages.reload();
                    }}
                  >
                    Delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {writable && (
        <form
          class="grid"
          style="max-width:560px"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            try {
              await call('POST /v1/status-pages', { body: form });
              setForm({ slug: '', title: '', description: '', checkIds: [] });
              pages.reload();
            } catch (err) {
              setError(err as ApiError);
            }
          }}
        >
          <h2>New status page</h2>
          <Field label="Slug" name="slug" error={error}>
            <input
              name="slug"
              value={form.slug}
              onInput={(e) => setForm({ ...form, slug: (e.target as HTMLInputElement).value })}
            />
          </Field>
          <Field label="Title" name="title" error={error}>
            <input
              name="title"
              value={form.title}
              onInput={(e) => setForm({ ...form, title: (e.target as HTMLInputElement).value })}
            />
          </Field>
          <Field label="Description" name="description" error={error}>
            <input
              name="description"
              value={form.description}
              onInput={(e) => setForm({ ...form, description: (e.target as HTMLInputElement).value })}
            />
          </Field>
          <fieldset>
            <legend>Checks shown</legend>
            {(checks.data ?? []).map((c) => (
              <label class="inline" key={c.id}>
                <input
                  type="checkbox"
                  checked={form.checkIds.includes(c.id)}
                  onChange={(e) =>
                    setForm({
                      ...form,
                      checkIds: (e.target as HTMLInputElement).checked
                        ? [...form.checkIds, c.id]
                        : form.checkIds.filter((id) => id !== c.id),
                    })
                  }
                />
                {c.name}
              </label>
            ))}
          </fieldset>
          {error && !['slug', 'title', 'description'].includes(error.field ?? '') && (
            <p class="error-box" role="alert">
              {error.message}
            </p>
          )}
          <button class="primary" type="submit">
            Create status page
          </button>
        </form>
      )}
    </>
  );
}
