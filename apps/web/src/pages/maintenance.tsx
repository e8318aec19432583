import { canWrite, session } from '../api.ts';
import { allChecks } from '../data.ts';
import { useAsync } from '../hooks.ts';
import { formatLocal, formatUtc, localSpan, utcSpan } from '../local-time.ts';
import { allWindows, nextOccurrence, repeatLabel, type MaintenanceWindow } from '../maintenance.ts';

/** Maintenance windows: when each is next in force, in the browser's time with UTC beside it. */
export function MaintenancePage() {
  const windows = useAsync(() => allWindows(), []);
  const checks = useAsync(() => allChecks(), []);
  const names = new Map((checks.data ?? []).map((c) => [c.id, c.name]));
  const now = Date.now();
  return (
    <>
      <div class="row">
        <h1>Maintenance</h1>
        <span class="spacer" />
        {canWrite(session()) && (
          <a class="button primary" href="/maintenance/new">
            New window
          </a>
        )}
      </div>
      <p class="muted">
        During a window the checks it covers skip their scheduled runs, or run without alerting anyone. Times are shown
        in your browser's time zone, with UTC beside them.
      </p>
      {windows.error && <p class="error-box">{windows.error.message}</p>}
      <div class="table-wrap">
        <table aria-label="Maintenance windows">
          <thead>
            <tr>
              <th>Name</th>
              <th>When</th>
              <th>Repeats</th>
              <th>Covers</th>
              <th>Scheduled runs</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {(windows.data ?? []).map((w) => (
              <WindowRow key={w.id} window={w} names={names} now={now} />
            ))}
          </tbody>
        </table>
      </div>
      {windows.data?.length === 0 && <p class="muted">No maintenance windows yet.</p>}
    </>
  );
}

function WindowRow({ window: w, names, now }: { window: MaintenanceWindow; names: Map<string, string>; now: number }) {
  // The occurrence in force or the next one; a window that is over shows its first.
  const next = nextOccurrence(w, now);
  const shown = next ?? { startMs: Date.parse(w.startsAt), endMs: Date.parse(w.endsAt) };
  const status = w.activeNow ? 'Active now' : next ? 'Upcoming' : 'Over';
  return (
    <tr data-window-id={w.id} data-active={String(w.activeNow)}>
      <td>
        <a href={`/maintenance/${w.id}`}>{w.name}</a>
      </td>
      <td>
        <time
          data-testid="window-local"
          dateTime={new Date(shown.startMs).toISOString()}
          title={utcSpan(shown.startMs, shown.endMs)}
        >
          {localSpan(shown.startMs, shown.endMs)}
        </time>
        <div class="muted" data-testid="window-utc">
          {utcSpan(shown.startMs, shown.endMs)}
        </div>
      </td>
      <td title={w.repeatEndsAt ? formatUtc(w.repeatEndsAt) : undefined}>{repeatLabel(w, formatLocal)}</td>
      <td class="wrap">
        {[...w.tags.map((t) => `tag ${t}`), ...w.checkIds.map((id) => names.get(id) ?? id)].join(', ')}
      </td>
      <td>{w.pauseRuns ? 'Skipped' : 'Run, no alerts'}</td>
      <td>
        <span class={`status-text ${w.activeNow ? 'degraded' : ''}`}>{status}</span>
      </td>
    </tr>
  );
}
