import { useState } from 'preact/hooks';
import type { ApiError, Body } from '../api.ts';
import { call, canWrite, session } from '../api.ts';
import type { Check } from '../api.gen.ts';
import { errorOutsideFields, Field } from '../components/field.tsx';
import { allChecks } from '../data.ts';
import { useAsync } from '../hooks.ts';
import { formatUtc, fromLocalInput, toLocalInput } from '../local-time.ts';
import { covers, type MaintenanceWindow } from '../maintenance.ts';
import { navigate } from '../router.ts';

const FIELDS = ['name', 'tags', 'checkIds', 'startsAt', 'endsAt', 'repeatUnit', 'repeatInterval', 'repeatEndsAt'];
type Unit = 'DAY' | 'WEEK' | 'MONTH';
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A new window, or an existing one loaded first. */
export function MaintenanceWindowPage({ windowId }: { windowId?: string }) {
  const loaded = useAsync(
    () => (windowId ? call('GET /v1/maintenance-windows/{id}', { params: { id: windowId } }) : Promise.resolve(null)),
    [windowId],
  );
  const checks = useAsync(() => allChecks(), []);
  if (loaded.error) return <p class="error-box">{loaded.error.message}</p>;
  if (loaded.data === undefined || !checks.data) return <p class="muted">Loading…</p>;
  return <WindowForm key={windowId ?? 'new'} window={loaded.data ?? undefined} checks={checks.data} />;
}

/** The form works in the browser's time (datetime-local inputs); what is sent, and shown beside, is UTC. */
function WindowForm({ window, checks }: { window?: MaintenanceWindow; checks: Check[] }) {
  const writable = canWrite(session());
  const [form, setForm] = useState({
    name: window?.name ?? '',
    tags: (window?.tags ?? []).join(', '),
    checkIds: window?.checkIds ?? [],
    starts: toLocalInput(window?.startsAt),
    ends: toLocalInput(window?.endsAt),
    repeat: (window?.repeatUnit ?? '') as Unit | '',
    interval: String(window?.repeatInterval ?? 1),
    repeatEnds: toLocalInput(window?.repeatEndsAt),
    pauseRuns: window?.pauseRuns ?? true,
  });
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const set = (patch: Partial<typeof form>) => setForm({ ...form, ...patch });
  const tags = form.tags
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const covered = checks.filter((c) => covers({ tags, checkIds: form.checkIds } as MaintenanceWindow, c));

  const body = (): Body<'POST /v1/maintenance-windows'> => ({
    name: form.name,
    tags,
    checkIds: form.checkIds,
    startsAt: fromLocalInput(form.starts),
    endsAt: fromLocalInput(form.ends),
    repeatUnit: form.repeat || null,
    repeatInterval: form.repeat ? Number(form.interval) : null,
    repeatEndsAt: form.repeat && form.repeatEnds ? fromLocalInput(form.repeatEnds) : null,
    pauseRuns: form.pauseRuns,
  });
  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      navigate('/maintenance');
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const save = () =>
    act(() =>
      window
        ? call('PUT /v1/maintenance-windows/{id}', { params: { id: window.id }, body: body() })
        : call('POST /v1/maintenance-windows', { body: body() }),
    );
  const remove = () => act(() => call('DELETE /v1/maintenance-windows/{id}', { params: { id: window!.id } }));

  const time = (label: string, name: string, key: 'starts' | 'ends' | 'repeatEnds') => (
    <Field label={label} name={name} error={error}>
      <input
        type="datetime-local"
        name={name}
        value={form[key]}
        onInput={(e) => set({ [key]: (e.target as HTMLInputElement).value })}
      />
      <span class="muted hint" data-testid={`${name}-utc`}>
        {fromLocalInput(form[key]) ? formatUtc(fromLocalInput(form[key])) : `Time zone: ${ZONE}`}
      </span>
    </Field>
  );

  return (
    <>
      <div class="row">
        <h1>{window ? window.name : 'New maintenance window'}</h1>
        <span class="spacer" />
        <a href="/maintenance">All windows</a>
      </div>
      <form
        class="grid"
        style="max-width:640px"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <fieldset class="grid" disabled={!writable || busy} style="border:0;padding:0;margin:0">
          <Field label="Name" name="name" error={error}>
            <input name="name" value={form.name} onInput={(e) => set({ name: (e.target as HTMLInputElement).value })} />
          </Field>
          <div class="grid two">
            {time('Starts (your time)', 'startsAt', 'starts')}
            {time('Ends (your time)', 'endsAt', 'ends')}
          </div>
          <div class="grid two">
            <Field label="Repeats" name="repeatUnit" error={error}>
              <select
                name="repeatUnit"
                value={form.repeat}
                onChange={(e) => set({ repeat: (e.target as HTMLSelectElement).value as Unit | '' })}
              >
                <option value="">Never (once)</option>
                <option value="DAY">Daily</option>
                <option value="WEEK">Weekly</option>
                <option value="MONTH">Monthly (the 31st falls on shorter months' last day)</option>
              </select>
            </Field>
            {form.repeat && (
              <Field label="Every (number of days, weeks or months)" name="repeatInterval" error={error}>
                <input
                  type="number"
                  name="repeatInterval"
                  min={1}
                  max={365}
                  value={form.interval}
                  onInput={(e) => set({ interval: (e.target as HTMLInputElement).value })}
                />
              </Field>
            )}
          </div>
          {form.repeat && time('Repeats until (optional)', 'repeatEndsAt', 'repeatEnds')}
          {form.repeat && (
            <p class="muted">
              Repeats keep the UTC time of the first occurrence: across a daylight-saving change, the local time moves
              by an hour.
            </p>
          )}
          <Field label="Checks with any of these tags (comma-separated)" name="tags" error={error}>
            <input name="tags" value={form.tags} onInput={(e) => set({ tags: (e.target as HTMLInputElement).value })} />
          </Field>
          <fieldset data-field="checkIds">
            <legend>And these checks</legend>
            {checks.map((c) => (
              <label class="inline" key={c.id}>
                <input
                  type="checkbox"
                  name="checkIds"
                  value={c.id}
                  checked={form.checkIds.includes(c.id)}
                  onChange={(e) =>
                    set({
                      checkIds: (e.target as HTMLInputElement).checked
                        ? [...form.checkIds, c.id]
                        : form.checkIds.filter((id) => id !== c.id),
                    })
                  }
                />
                {c.name}
              </label>
            ))}
            {error?.field?.startsWith('checkIds') && (
              <span class="field-error" role="alert">
                {error.message}
              </span>
            )}
          </fieldset>
          <p class="muted" data-testid="covered">
            {covered.length === 0
              ? 'Covers no check yet.'
              : `Covers ${covered.length} check${covered.length === 1 ? '' : 's'}: ${covered.map((c) => c.name).join(', ')}`}
          </p>
          <label class="inline">
            <input
              type="checkbox"
              name="pauseRuns"
              checked={form.pauseRuns}
              onChange={(e) => set({ pauseRuns: (e.target as HTMLInputElement).checked })}
            />
            Skip scheduled runs (unticked: they run and are stored, but alert nobody)
          </label>
          {errorOutsideFields(error, FIELDS) && (
            <p class="error-box" role="alert">
              {error!.message}
            </p>
          )}
          {writable && (
            <div class="row">
              <button class="primary" type="submit">
                {window ? 'Save' : 'Create window'}
              </button>
              {window && !confirming && (
                <button type="button" class="danger" onClick={() => setConfirming(true)}>
                  Delete
                </button>
              )}
              {window && confirming && (
                <>
                  <span role="status">Delete this window? Covered checks run and alert as usual again.</span>
                  <button type="button" class="danger" onClick={() => void remove()}>
                    Yes, delete
                  </button>
                  <button type="button" onClick={() => setConfirming(false)}>
                    Cancel
                  </button>
                </>
              )}
            </div>
          )}
        </fieldset>
      </form>
    </>
  );
}
