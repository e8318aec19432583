/**
 * What a script check's run reports beyond the common result: its steps, console output and the
 * requests it made. Read loosely, from the result or beside it, so a run of any other type (or
 * from a server that reports none of it) renders nothing here.
 */
type Loose = Record<string, unknown>;
interface Step {
  name: string;
  status: string;
  durationMs: number | null;
  error: string | null;
}
interface Request {
  method: string;
  url: string;
  status: number | null;
  durationMs: number | null;
  error: string | null;
}

const text = (value: unknown): string | null =>
  typeof value === 'string'
    ? value
    : value && typeof value === 'object' && typeof (value as Loose).message === 'string'
      ? ((value as Loose).message as string)
      : null;
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const list = (value: unknown): Loose[] =>
  Array.isArray(value) ? value.filter((x): x is Loose => !!x && typeof x === 'object') : [];

export function scriptParts(...sources: unknown[]): { steps: Step[]; logs: string; requests: Request[] } | null {
  const field = (name: string) =>
    sources.map((s) => (s && typeof s === 'object' ? (s as Loose)[name] : undefined)).find((v) => v !== undefined);
  const rawSteps = field('steps');
  const rawLogs = field('logs');
  const rawRequests = field('requests');
  if (rawSteps === undefined && rawLogs === undefined && rawRequests === undefined) return null;
  const steps = list(rawSteps).map((s) => ({
    name: String(s.name ?? s.title ?? ''),
    status: String(s.status ?? ''),
    durationMs: num(s.durationMs ?? s.duration),
    error: text(s.error),
  }));
  const logs = Array.isArray(rawLogs)
    ? rawLogs
        .map((line) => {
          if (typeof line === 'string') return line;
          const l = (line ?? {}) as Loose;
          const message = text(l) ?? String(l.msg ?? l.text ?? '');
          return l.level ? `[${String(l.level)}] ${message}` : message;
        })
        .join('\n')
    : typeof rawLogs === 'string'
      ? rawLogs
      : '';
  const requests = list(rawRequests).map((r) => {
    const response = (r.response ?? {}) as Loose;
    const timings = (r.timings ?? {}) as Loose;
    return {
      method: String(r.method ?? ''),
      url: String(r.url ?? ''),
      status: num(r.status ?? r.statusCode ?? response.status),
      durationMs: num(r.durationMs ?? timings.total ?? r.duration),
      error: text(r.error),
    };
  });
  return { steps, logs, requests };
}

const passed = (status: string) => /^(passed|pass|ok|success)$/i.test(status);
const skipped = (status: string) => /^(skipped|pending)$/i.test(status);
const ms = (value: number | null) => (value === null ? '–' : `${Math.round(value)} ms`);

export function ScriptDetails(props: { sources: unknown[] }) {
  const parts = scriptParts(...props.sources);
  if (!parts) return null;
  return (
    <>
      <div data-testid="script-steps">
        <h3>Steps</h3>
        {parts.steps.length === 0 ? (
          <p class="muted">The script reported no steps.</p>
        ) : (
          <ol class="steps">
            {parts.steps.map((s, i) => {
              const state = passed(s.status) ? 'passing' : skipped(s.status) ? 'muted' : 'failing';
              return (
                <li key={i} data-status={s.status}>
                  <span class={`status-text ${state}`}>{passed(s.status) ? '✓' : skipped(s.status) ? '–' : '✗'}</span>{' '}
                  <strong>{s.name || '(unnamed step)'}</strong>{' '}
                  <span class="muted">
                    · {s.status} · {ms(s.durationMs)}
                  </span>
                  {s.error && <pre class="error-box">{s.error}</pre>}
                </li>
              );
            })}
          </ol>
        )}
      </div>
      {parts.requests.length > 0 && (
        <div class="table-wrap" data-testid="script-requests">
          <h3>Requests</h3>
          <table>
            <thead>
              <tr>
                <th>Method</th>
                <th>URL</th>
                <th>Status</th>
                <th>Time</th>
              </tr>
            </thead>
            <tbody>
              {parts.requests.map((r, i) => (
                <tr key={i}>
                  <td>{r.method}</td>
                  <td class="wrap">{r.url}</td>
                  <td>{r.status ?? r.error ?? '–'}</td>
                  <td>{ms(r.durationMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div data-testid="script-logs">
        <h3>Logs</h3>
        {parts.logs ? <pre class="log">{parts.logs}</pre> : <p class="muted">No console output.</p>}
      </div>
    </>
  );
}
