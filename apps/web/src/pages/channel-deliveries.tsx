import { useState } from 'preact/hooks';
import { call, canWrite, session } from '../api.ts';
import { useAsync } from '../hooks.ts';
import { setQuery, useLocation } from '../router.ts';

/** The channel's delivery log, any type: one row per attempt, alert deliveries replayable. */
export function Deliveries({ channelId, refresh }: { channelId: string; refresh: unknown }) {
  const url = useLocation();
  const outcome = url.searchParams.get('outcome') ?? '';
  const [tick, setTick] = useState(0);
  const log = useAsync(
    () =>
      call('GET /v1/alert-channels/{id}/deliveries', {
        params: { id: channelId },
        query: { limit: 50, outcome: outcome || undefined },
      }),
    [channelId, outcome, refresh, tick],
  );
  const [replayed, setReplayed] = useState<string | null>(null);
  return (
    <section aria-labelledby="deliveries-title">
      <div class="row">
        <h2 id="deliveries-title">Delivery log</h2>
        <span class="spacer" />
        <select
          aria-label="Filter by outcome"
          value={outcome}
          onChange={(e) => setQuery({ outcome: (e.target as HTMLSelectElement).value })}
        >
          <option value="">All outcomes</option>
          <option value="delivered">Delivered</option>
          <option value="failed">Failed</option>
          <option value="refused">Refused</option>
        </select>
        <button onClick={() => setTick((t) => t + 1)}>Refresh</button>
      </div>
      {replayed && <p role="status">{replayed}</p>}
      <div class="table-wrap">
        <table aria-label="Deliveries">
          <thead>
            <tr>
              <th>When</th>
              <th>Alert</th>
              <th>Attempt</th>
              <th>Outcome</th>
              <th>Status</th>
              <th>Response</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(log.data ?? []).map((d) => (
              <tr
                key={`${d.deliveryId}-${d.attempt}`}
                data-outcome={d.outcome}
                data-delivery-id={d.deliveryId}
                data-attempt={d.attempt}
              >
                <td>{new Date(d.at).toLocaleString()}</td>
                <td>
                  {d.alertType}
                  {d.test ? ' (test)' : ''}
                </td>
                <td>{d.attempt}</td>
                <td>{d.outcome}</td>
                <td>{d.statusCode ?? d.error ?? '–'}</td>
                <td style="max-width:240px;overflow:hidden;text-overflow:ellipsis">
                  <code>{d.responseBody.slice(0, 120)}</code>
                </td>
                <td>
                  {/* A test send is not an alert: the API replays alert deliveries only. */}
                  {canWrite(session()) && !d.test && (
                    <button
                      aria-label={`Replay delivery ${d.deliveryId.slice(0, 8)}`}
                      onClick={async () => {
                        try {
                          const out = await call('POST /v1/alert-channels/{id}/deliveries/{deliveryId}/retry', {
                            params: { id: channelId, deliveryId: d.deliveryId },
                          });
                          setReplayed(`Replay of ${out.id.slice(0, 8)}: ${out.status}`);
                        } catch (e) {
                          setReplayed(`Replay failed: ${(e as Error).message}`);
                        }
                        // The dispatcher sends the replay within a moment; the log then shows the new attempt.
                        for (const ms of [500, 1500, 4000]) setTimeout(() => setTick((t) => t + 1), ms);
                      }}
                    >
                      Replay
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
