import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, canWrite, session } from '../api.ts';
import type { Check, CheckRunResult, CheckStatus } from '../api.gen.ts';
import { RANGES, ResponseChart, type RangeKey } from '../components/response-chart.tsx';
import { HeartbeatPanel } from '../components/heartbeat-panel.tsx';
import { RunDrawer } from '../components/run-drawer.tsx';
import { WebVitals } from '../components/web-vitals.tsx';
import { scheduleOf, skippedLines, statusClass, statusOf } from '../data.ts';
import { relativeTime, useAsync } from '../hooks.ts';
import { followEvents } from '../live.ts';
import { navigate, setQuery, useLocation } from '../router.ts';

export function CheckPage(props: { checkId: string; runId?: string }) {
  const url = useLocation();
  const q = url.searchParams;
  const range = (q.get('range') ?? '24h') as RangeKey;
  const groupBy = q.get('groupBy') ?? '';
  const from = q.get('from') ?? '';
  const to = q.get('to') ?? '';
  const runId = props.runId ?? q.get('run') ?? null;
  const check = useAsync(() => call('GET /v1/checks/{id}', { params: { id: props.checkId } }), [props.checkId]);
  const [status, setStatus] = useState<CheckStatus | undefined>();
  useEffect(() => {
    // One check's status, not the account's: with 1,000 checks the full list is most of the page's bytes.
    void call('GET /v1/check-statuses', { query: { checkId: props.checkId } }).then((all) =>
      setStatus(all.find((s) => s.checkId === props.checkId)),
    );
    return followEvents((event) => {
      const s = event.data as CheckStatus;
      // Live statuses carry no skip counts: the ones read with the page stay.
      if (event.event === 'status' && s.checkId === props.checkId)
        setStatus((previous) => ({ ...s, skipped: s.skipped ?? previous?.skipped }));
    });
  }, [props.checkId]);

  if (check.error)
    return (
      <>
        <h1>Check not found</h1>
        <p class="error-box">{check.error.message}</p>
        <a href="/">Back to checks</a>
      </>
    );
  if (!check.data) return <p class="muted">Loading…</p>;
  const c = check.data;
  const state = statusOf(status);
  const closeRun = () =>
    navigate(`/checks/${c.id}${url.search.replace(/([?&])run=[^&]*&?/, '$1').replace(/[?&]$/, '')}`);
  return (
    <>
      <div class="row">
        <h1>
          <span class={`dot ${statusClass(state)}`} aria-hidden="true" /> {c.name}
        </h1>
        <span class={`status-text ${statusClass(state)}`} data-testid="check-status">
          {state}
        </span>
        <span class="spacer" />
        <span class="badge">{c.checkType}</span>
        <span class="muted">
          {scheduleOf(c)} · {c.locations.join(', ') || 'default location'}
        </span>
        {canWrite(session()) && <CheckActions check={c} />}
      </div>
      <p class="muted">
        Last run {relativeTime(status?.lastRunAt)}
        {status?.sslDaysRemaining != null && ` · SSL certificate expires in ${status.sslDaysRemaining} days`}
      </p>
      {skippedLines(status).map((line) => (
        <p class="muted" data-testid="check-skipped">
          {line}
        </p>
      ))}
      {c.checkType === 'HEARTBEAT' && <HeartbeatPanel check={c} />}
      <div class="row" role="group" aria-label="Time range">
        {(Object.keys(RANGES) as RangeKey[]).map((r) => (
          <button
            key={r}
            aria-pressed={range === r}
            onClick={() => setQuery({ range: r, from: null, to: null }, false)}
          >
            {r}
          </button>
        ))}
        <button aria-pressed={range === 'custom'} onClick={() => setQuery({ range: 'custom' }, false)}>
          Custom
        </button>
        {range === 'custom' && (
          <>
            <input
              type="datetime-local"
              aria-label="From"
              value={from}
              onChange={(e) => setQuery({ from: (e.target as HTMLInputElement).value })}
            />
            <input
              type="datetime-local"
              aria-label="To"
              value={to}
              onChange={(e) => setQuery({ to: (e.target as HTMLInputElement).value })}
            />
          </>
        )}
        <span class="spacer" />
        <label class="inline">
          Group by&nbsp;
          <select value={groupBy} onChange={(e) => setQuery({ groupBy: (e.target as HTMLSelectElement).value }, false)}>
            <option value="">Nothing</option>
            <option value="runLocation">Location</option>
            {(c.checkType === 'API' || c.checkType === 'URL') && <option value="statusCode">Status code</option>}
          </select>
        </label>
      </div>
      <ResponseChart check={c} range={range} from={from} to={to} groupBy={groupBy} />
      {c.checkType === 'BROWSER' && <WebVitals check={c} range={range} />}
      <Beats check={c} refreshKey={status?.lastCheckRunId ?? ''} />
      <Runs check={c} refreshKey={status?.lastCheckRunId ?? ''} />
      <Alerts check={c} />
      {runId && <RunDrawer check={c} runId={runId} onClose={closeRun} />}
    </>
  );
}

function CheckActions({ check }: { check: Check }) {
  const [message, setMessage] = useState<string | null>(null);
  return (
    <>
      <a class="button" href={`/checks/${check.id}/edit`}>
        Edit
      </a>
      <button
        onClick={async () => {
          setMessage('Running…');
          try {
            const out = await call('POST /v1/checks/{id}/trigger', { params: { id: check.id } });
            const failed = out.results.filter((r) => r.result.hasFailures).length;
            setMessage(`${out.results.length} run(s), ${failed} failed`);
          } catch (e) {
            setMessage((e as Error).message);
          }
        }}
      >
        Run now
      </button>
      {message && <span role="status">{message}</span>}
    </>
  );
}

function Beats({ check, refreshKey }: { check: Check; refreshKey: string }) {
  const runs = useAsync(
    () => call('GET /v1/check-results/{checkId}', { params: { checkId: check.id }, query: { limit: 60 } }),
    [check.id, refreshKey],
  );
  const items = [...(runs.data?.items ?? [])].reverse();
  return (
    <section aria-labelledby="beats-title">
      <h2 id="beats-title">Last {items.length} runs</h2>
      <div
        class="beats"
        role="img"
        aria-label={`${items.filter((r) => !r.hasFailures).length} of ${items.length} recent runs passed`}
      >
        {items.map((r) => (
          <span
            key={r.id}
            class={r.hasFailures ? 'fail' : r.isDegraded ? 'degraded' : 'pass'}
            title={`${r.startedAt}: ${r.hasFailures ? 'failed' : 'passed'} in ${Math.round(r.responseTime)} ms`}
          />
        ))}
      </div>
    </section>
  );
}

function Runs({ check, refreshKey }: { check: Check; refreshKey: string }) {
  const url = useLocation();
  const q = url.searchParams;
  const location = q.get('location') ?? '';
  const outcome = q.get('outcome') ?? '';
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const page = useAsync(
    () =>
      call('GET /v1/check-results/{checkId}', {
        params: { checkId: check.id },
        query: {
          limit: 20,
          cursor,
          location,
          hasFailures: outcome === '' ? undefined : outcome === 'failed' ? 'true' : 'false',
        },
      }),
    [check.id, cursor, location, outcome, cursors.length === 0 ? refreshKey : ''],
  );
  const open = (r: CheckRunResult) => setQuery({ run: r.id }, false);
  return (
    <section aria-labelledby="runs-title">
      <div class="row">
        <h2 id="runs-title">{check.checkType === 'HEARTBEAT' ? 'Last pings' : 'Runs'}</h2>
        <span class="spacer" />
        <input
          aria-label="Filter by location"
          placeholder="Location"
          value={location}
          onChange={(e) => {
            setCursors([]);
            setQuery({ location: (e.target as HTMLInputElement).value });
          }}
        />
        <select
          aria-label="Filter by outcome"
          value={outcome}
          onChange={(e) => {
            setCursors([]);
            setQuery({ outcome: (e.target as HTMLSelectElement).value });
          }}
        >
          <option value="">All outcomes</option>
          <option value="passed">Passed</option>
          <option value="failed">Failed</option>
        </select>
      </div>
      {page.error && (
        <p class="error-box">{page.error instanceof ApiError ? page.error.message : String(page.error)}</p>
      )}
      <div class="table-wrap">
        <table aria-label="Runs">
          <thead>
            <tr>
              <th>Result</th>
              <th>Started</th>
              <th>Location</th>
              <th>Response time</th>
              <th>{check.checkType === 'HEARTBEAT' ? 'Ping' : 'Status'}</th>
              <th class="hide-phone">Error</th>
            </tr>
          </thead>
          <tbody>
            {(page.data?.items ?? []).map((r) => (
              <tr key={r.id} class="clickable" data-run-id={r.id} onClick={() => open(r)}>
                <td>
                  <a
                    href={`?${new URLSearchParams({ ...Object.fromEntries(q), run: r.id })}`}
                    onClick={(e) => {
                      e.preventDefault();
                      open(r);
                    }}
                  >
                    <span class={`status-text ${r.hasFailures ? 'failing' : r.isDegraded ? 'degraded' : 'passing'}`}>
                      {r.hasFailures ? 'Failed' : r.isDegraded ? 'Degraded' : 'Passed'}
                    </span>
                  </a>
                </td>
                <td>{new Date(r.startedAt).toLocaleString()}</td>
                <td>{r.runLocation}</td>
                <td>{Math.round(r.responseTime)} ms</td>
                <td>{check.checkType === 'HEARTBEAT' ? (r.heartbeatStatus ?? '–') : (r.statusCode ?? '–')}</td>
                <td class="hide-phone" style="max-width:320px;overflow:hidden;text-overflow:ellipsis">
                  {r.errorMessage ?? ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="row" style="margin-top:8px">
        <button disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </button>
        <button
          disabled={!page.data?.nextCursor}
          onClick={() => page.data?.nextCursor && setCursors((c) => [...c, page.data!.nextCursor!])}
        >
          Older
        </button>
      </div>
    </section>
  );
}

function Alerts({ check }: { check: Check }) {
  const alerts = useAsync(
    () => call('GET /v1/check-alerts/{checkId}', { params: { checkId: check.id }, query: { limit: 10 } }),
    [check.id],
  );
  const items = alerts.data?.items ?? [];
  return (
    <section aria-labelledby="alerts-title">
      <h2 id="alerts-title">Alerts</h2>
      {items.length === 0 ? (
        <p class="muted">No alerts.</p>
      ) : (
        <ul>
          {items.map((a) => (
            <li key={a.alertId}>
              {new Date(a.startedAt).toLocaleString()} · <strong>{a.alertType.replace('ALERT_', '')}</strong>
              {a.isReminder && ` (reminder ${a.reminderSequence})`} · {a.runLocation}{' '}
              <a href={`/checks/${check.id}/results/${a.resultId}`}>run</a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
