import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, canWrite, session } from '../api.ts';
import type { CheckStatus } from '../api.gen.ts';
import { Sparkline } from '../components/sparkline.tsx';
import { allChecks, allGroups, scheduleOf, statusClass, statusOf, type StatusName } from '../data.ts';
import { relativeTime, useAsync } from '../hooks.ts';
import { followEvents } from '../live.ts';
import { setQuery, useLocation } from '../router.ts';

const TYPES = ['API', 'URL', 'TCP', 'DNS', 'HEARTBEAT', 'BROWSER', 'MULTI_STEP', 'PLAYWRIGHT'];
const STATUSES: StatusName[] = ['failing', 'degraded', 'no data', 'passing'];
const RANK: Record<StatusName, number> = { failing: 0, degraded: 1, 'no data': 2, passing: 3 };
/** Rows drawn at first, and added by each "Show more". */
const PAGE = 100;

export function OverviewPage() {
  const url = useLocation();
  const q = url.searchParams;
  const filters = {
    search: q.get('q') ?? '',
    type: q.get('type') ?? '',
    tag: q.get('tag') ?? '',
    group: q.get('group') ?? '',
    status: q.get('status') ?? '',
  };
  const loaded = useAsync(async () => {
    const [checks, statuses, groups] = await Promise.all([
      allChecks(),
      call('GET /v1/check-statuses', { query: { with: 'summary24h' } }),
      allGroups(),
    ]);
    // The bench reads this mark beside vigil:overview-rendered: time to data, then time to render it.
    performance.mark('vigil:overview-data', { detail: { checks: checks.length } });
    return { checks, statuses, groups };
  }, []);
  const [live, setLive] = useState<Map<string, CheckStatus>>(new Map());
  const [connected, setConnected] = useState(false);
  useEffect(
    () =>
      followEvents((event) => {
        if (event.event !== 'status') return;
        const status = event.data as CheckStatus;
        setLive((prev) => new Map(prev).set(status.checkId, status));
      }, setConnected),
    [],
  );

  const rows = useMemo(() => {
    if (!loaded.data) return [];
    const byId = new Map(loaded.data.statuses.map((s) => [s.checkId, s]));
    const all = loaded.data.checks.map((check) => {
      const base = byId.get(check.id);
      const fresh = live.get(check.id);
      // Live events carry the status only; the 24 h summary stays from the last load.
      const status = fresh ? ({ ...base, ...fresh } as CheckStatus) : base;
      return { check, status, state: statusOf(status) };
    });
    // What needs attention first: failing, then degraded, then silent checks; the sort is stable,
    // so the API's order (by name) holds within each status.
    return all.sort((a, b) => RANK[a.state] - RANK[b.state]);
  }, [loaded.data, live]);
  const tags = useMemo(() => [...new Set(rows.flatMap((r) => r.check.tags))].sort(), [rows]);
  const visible = rows.filter(
    ({ check, state }) =>
      (!filters.search || check.name.toLowerCase().includes(filters.search.toLowerCase())) &&
      (!filters.type || check.checkType === filters.type) &&
      (!filters.tag || check.tags.includes(filters.tag)) &&
      (!filters.group || check.groupId === filters.group) &&
      (!filters.status || state === filters.status),
  );
  const counts = STATUSES.map((s) => [s, rows.filter((r) => r.state === s).length] as const);
  // The table grows a page at a time: 1,000 rows with sparklines took two thirds of the overview's
  // time to draw, while search, filters and counts still cover every check.
  const [shown, setShown] = useState(PAGE);
  const page = visible.slice(0, shown);
  const rendered = loaded.data !== undefined;
  useEffect(() => {
    // The bench reads this mark: navigation → the table's rows in the DOM.
    if (rendered && performance.getEntriesByName('vigil:overview-rendered').length === 0)
      performance.mark('vigil:overview-rendered', { detail: { rows: page.length, checks: rows.length } });
  }, [rendered]);

  return (
    <>
      <div class="row">
        <h1>Checks</h1>
        <span class="spacer" />
        <span class="muted" aria-live="polite">
          {connected ? 'Live' : 'Connecting…'}
        </span>
        {canWrite(session()) && (
          <a class="button primary" href="/checks/new">
            New check
          </a>
        )}
      </div>
      <div class="row" role="search" style="margin-bottom:12px">
        <input
          type="search"
          aria-label="Search checks"
          placeholder="Search checks"
          value={filters.search}
          onInput={(e) => setQuery({ q: (e.target as HTMLInputElement).value })}
        />
        <Select
          label="Type"
          value={filters.type}
          options={TYPES.map((t) => [t, t])}
          onChange={(v) => setQuery({ type: v })}
        />
        <Select
          label="Tag"
          value={filters.tag}
          options={tags.map((t) => [t, t])}
          onChange={(v) => setQuery({ tag: v })}
        />
        <Select
          label="Group"
          value={filters.group}
          options={(loaded.data?.groups ?? []).map((g) => [g.id, g.name])}
          onChange={(v) => setQuery({ group: v })}
        />
        <Select
          label="Status"
          plural="statuses"
          value={filters.status}
          options={counts.map(([s, n]) => [s, `${s} (${n})`])}
          onChange={(v) => setQuery({ status: v })}
        />
      </div>
      {loaded.data && (
        <ul class="summary" aria-label="Checks by status">
          {counts.map(([s, n]) => (
            <li key={s} data-status={s}>
              <button
                class={filters.status === s ? 'active' : ''}
                aria-pressed={filters.status === s}
                onClick={() => setQuery({ status: filters.status === s ? '' : s })}
              >
                <span class={`dot ${statusClass(s)}`} aria-hidden="true" /> <strong>{n}</strong> {s}
              </button>
            </li>
          ))}
        </ul>
      )}
      {loaded.error && <p class="error-box">{loaded.error.message}</p>}
      {loaded.loading && !loaded.data && <p class="muted">Loading checks…</p>}
      {loaded.data && (
        <div class="table-wrap">
          <table aria-label="Checks" data-count={visible.length}>
            <thead>
              <tr>
                <th>Status</th>
                <th>Name</th>
                <th>Type</th>
                <th class="hide-phone">Frequency</th>
                <th class="hide-phone">Locations</th>
                <th>Last run</th>
                <th>24 h availability</th>
                <th class="hide-phone">p95 (24 h)</th>
              </tr>
            </thead>
            <tbody>
              {page.map(({ check, status, state }) => (
                <tr key={check.id} data-check-id={check.id} data-status={state}>
                  <td>
                    <span class={`dot ${statusClass(state)}`} aria-hidden="true" />{' '}
                    <span class={`status-text ${statusClass(state)}`}>{state}</span>
                  </td>
                  <td>
                    <a href={`/checks/${check.id}`}>{check.name}</a>
                    {!check.activated && <span class="badge">paused</span>}
                  </td>
                  <td>{check.checkType}</td>
                  <td class="hide-phone">{scheduleOf(check)}</td>
                  <td class="hide-phone">{check.locations.join(', ') || 'default'}</td>
                  <td title={status?.lastRunAt ?? ''}>{relativeTime(status?.lastRunAt)}</td>
                  <td>{status?.availability24h == null ? '–' : `${status.availability24h.toFixed(2)}%`}</td>
                  <td class="hide-phone">
                    <Sparkline
                      values={status?.p95Sparkline ?? []}
                      label={`p95 response time of ${check.name}, last 24 hours`}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {visible.length === 0 && <p class="muted">No checks match.</p>}
          {visible.length > page.length && (
            <div class="row" style="margin-top:8px">
              <span class="muted">
                Showing {page.length} of {visible.length} checks
              </span>
              <button onClick={() => setShown((n) => n + PAGE)}>
                Show {Math.min(PAGE, visible.length - page.length)} more
              </button>
              <button onClick={() => setShown(visible.length)}>Show all</button>
            </div>
          )}
        </div>
      )}
    </>
  );
}

function Select(props: {
  label: string;
  /** "All <plural>"; the label + s when left out. */
  plural?: string;
  value: string;
  options: (readonly [string, string])[];
  onChange: (v: string) => void;
}) {
  return (
    <select
      aria-label={props.label}
      value={props.value}
      onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
    >
      <option value="">All {props.plural ?? `${props.label.toLowerCase()}s`}</option>
      {props.options.map(([value, text]) => (
        <option value={value} key={value}>
          {text}
        </option>
      ))}
    </select>
  );
}
