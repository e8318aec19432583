import { call, canWrite, session } from '../api.ts';
import { useAsync } from '../hooks.ts';
import { setQuery, useLocation } from '../router.ts';
import { ServiceEditor } from './channel-service.tsx';
import { CHANNEL_TYPES, labelOf, sendsOf, targetOf, type ChannelType } from './channel-types.ts';
import { WebhookEditor } from './channel-webhook.tsx';

export function ChannelsPage() {
  const channels = useAsync(() => call('GET /v1/alert-channels', { query: { limit: 100 } }), []);
  return (
    <>
      <div class="row">
        <h1>Alert channels</h1>
        <span class="spacer" />
        {canWrite(session()) && (
          <a class="button primary" href="/alert-channels/new">
            New channel
          </a>
        )}
      </div>
      {channels.error && <p class="error-box">{channels.error.message}</p>}
      <table aria-label="Alert channels">
        <thead>
          <tr>
            <th>Name</th>
            <th>Type</th>
            <th>Target</th>
            <th>Sends</th>
            <th>Problems</th>
          </tr>
        </thead>
        <tbody>
          {(channels.data ?? []).map((c) => (
            <tr key={c.id} data-channel-id={c.id} data-type={c.type}>
              <td>
                <a href={`/alert-channels/${c.id}`}>{c.config.name}</a>
              </td>
              <td>{labelOf(c.type)}</td>
              <td class="wrap">{targetOf(c)}</td>
              <td>{sendsOf(c)}</td>
              <td>{c.problems.join('; ') || '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** A new channel (type from ?type=, webhook by default) or an existing one, in its type's editor. */
export function ChannelPage({ channelId }: { channelId?: string }) {
  return channelId ? <ExistingChannel key={channelId} channelId={channelId} /> : <NewChannel />;
}

function NewChannel() {
  const url = useLocation();
  const asked = url.searchParams.get('type');
  const type = CHANNEL_TYPES.find((t) => t.type === asked)?.type ?? 'WEBHOOK';
  // In the URL, so a reload or a shared link opens the same form.
  const picker = (
    <label>
      Type
      <select
        name="type"
        value={type}
        onChange={(e) => setQuery({ type: (e.target as HTMLSelectElement).value as ChannelType })}
      >
        {CHANNEL_TYPES.map((t) => (
          <option key={t.type} value={t.type}>
            {t.label}
          </option>
        ))}
      </select>
    </label>
  );
  // Keyed by type: another type starts from an empty form of its own.
  return type === 'WEBHOOK' ? (
    <WebhookEditor key={type} picker={picker} />
  ) : (
    <ServiceEditor key={type} type={type} picker={picker} />
  );
}

function ExistingChannel({ channelId }: { channelId: string }) {
  const loaded = useAsync(() => call('GET /v1/alert-channels/{id}', { params: { id: channelId } }), [channelId]);
  const channel = loaded.data;
  if (loaded.error) return <p class="error-box">{loaded.error.message}</p>;
  if (!channel) return <p class="muted">Loading…</p>;
  return channel.type === 'WEBHOOK' ? (
    <WebhookEditor channel={channel} />
  ) : (
    <ServiceEditor type={channel.type} channel={channel} />
  );
}
