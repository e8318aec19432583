import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import { call, canWrite, session } from '../api.ts';
import type { Operations } from '../api.gen.ts';
import { errorOutsideFields, Field } from '../components/field.tsx';
import { useAsync } from '../hooks.ts';
import { navigate, setQuery, useLocation } from '../router.ts';

type Preview = Operations['POST /v1/alert-channels/preview']['response'];
type TestOutcome = Operations['POST /v1/alert-channels/{id}/test']['response'];

export function ChannelsPage() {
  const channels = useAsync(() => call('GET /v1/alert-channels', { query: { limit: 100 } }), []);
  return (
    <>
      <div class="row">
        <h1>Alert channels</h1>
        <span class="spacer" />
        {canWrite(session()) && (
          <a class="button primary" href="/alert-channels/new">
            New webhook
          </a>
        )}
      </div>
      {channels.error && <p class="error-box">{channels.error.message}</p>}
      <table aria-label="Alert channels">
        <thead>
          <tr>
            <th>Name</th>
            <th>URL</th>
            <th>Sends</th>
            <th>Problems</th>
          </tr>
        </thead>
        <tbody>
          {(channels.data ?? []).map((c) => (
            <tr key={c.id}>
              <td>
                <a href={`/alert-channels/${c.id}`}>{c.config.name}</a>
              </td>
              <td>
                {'url' in c.config ? `${'method' in c.config ? `${c.config.method} ` : ''}${c.config.url}` : c.type}
              </td>
              <td>
                {[
                  c.sendFailure && 'failure',
                  c.sendRecovery && 'recovery',
                  c.sendDegraded && 'degraded',
                  c.sslExpiry && 'SSL',
                ]
                  .filter(Boolean)
                  .join(', ')}
              </td>
              <td>{c.problems.join('; ') || '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

const SAMPLE_TEMPLATE = '{\n  "check": "{{CHECK_NAME}}",\n  "type": "{{ALERT_TYPE}}",\n  "link": "{{RESULT_LINK}}"\n}';

/** The template error's position, from the API's message ("… line 3, column 7 …"). */
function position(message: string): string | null {
  const m = /line (\d+)(?:,? column (\d+))?/i.exec(message);
  return m ? `Line ${m[1]}${m[2] ? `, column ${m[2]}` : ''}` : null;
}

export function ChannelPage({ channelId }: { channelId?: string }) {
  const writable = canWrite(session());
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [method, setMethod] = useState<'POST' | 'PUT' | 'GET'>('POST');
  const [template, setTemplate] = useState(SAMPLE_TEMPLATE);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [previewError, setPreviewError] = useState<ApiError | null>(null);
  const [test, setTest] = useState<TestOutcome | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!channelId) return;
    void call('GET /v1/alert-channels/{id}', { params: { id: channelId } }).then((c) => {
      setName(c.config.name);
      if (c.type !== 'WEBHOOK' || !('method' in c.config)) return;
      setUrl(c.config.url);
      setMethod(c.config.method as 'POST');
      setTemplate(c.config.template ?? '');
    });
  }, [channelId]);
  const config = () => ({
    name: name || 'Preview',
    url: url || 'https://example.com/hook',
    method,
    template: template || null,
  });
  // Live preview: re-render shortly after each edit.
  useEffect(() => {
    const timer = setTimeout(() => {
      call('POST /v1/alert-channels/preview', { body: { config: config(), alertType: 'ALERT_FAILURE' } }).then(
        (p) => {
          setPreview(p);
          setPreviewError(null);
        },
        (e: ApiError) => setPreviewError(e),
      );
    }, 300);
    return () => clearTimeout(timer);
  }, [name, url, method, template]);

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      const body = { config: { ...config(), name, url, ...(secret ? { webhookSecret: secret } : {}) } };
      const saved = channelId
        ? await call('PUT /v1/alert-channels/{id}', { params: { id: channelId }, body })
        : await call('POST /v1/alert-channels', { body });
      navigate(`/alert-channels/${saved.id}`);
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const at = previewError ? position(previewError.message) : null;
  return (
    <>
      <h1>{channelId ? name || 'Webhook' : 'New webhook'}</h1>
      <div class="grid two">
        <form
          class="grid"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <Field label="Name" name="config.name" error={error}>
            <input
              name="name"
              value={name}
              disabled={!writable}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </Field>
          <Field label="URL" name="config.url" error={error}>
            <input
              name="url"
              value={url}
              disabled={!writable}
              onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
              placeholder="https://hooks.example.com/vigil"
            />
          </Field>
          <label>
            Method
            <select
              value={method}
              disabled={!writable}
              onChange={(e) => setMethod((e.target as HTMLSelectElement).value as 'POST')}
            >
              {['POST', 'PUT', 'GET'].map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </label>
          <Field label="Signing secret (write-only)" name="config.webhookSecret" error={error}>
            <input
              type="password"
              name="secret"
              value={secret}
              disabled={!writable}
              onInput={(e) => setSecret((e.target as HTMLInputElement).value)}
              placeholder={channelId ? 'unchanged' : 'optional, e.g. whsec_…'}
            />
          </Field>
          <Field label="Body template (Handlebars)" name="config.template" error={error}>
            <textarea
              name="template"
              rows={10}
              value={template}
              disabled={!writable}
              aria-invalid={previewError ? 'true' : 'false'}
              aria-describedby="template-error"
              onInput={(e) => setTemplate((e.target as HTMLTextAreaElement).value)}
            />
          </Field>
          <p id="template-error" class="field-error" role="status" data-testid="template-error">
            {previewError ? `${at ? `${at}: ` : ''}${previewError.message}` : ''}
          </p>
          {errorOutsideFields(error, ['config']) && (
            <p class="error-box" role="alert">
              {error!.message}
            </p>
          )}
          {writable && (
            <div class="row">
              <button class="primary" type="submit" disabled={busy}>
                Save
              </button>
              {channelId && (
                <button
                  type="button"
                  disabled={busy}
                  onClick={async () => {
                    setBusy(true);
                    try {
                      setTest(await call('POST /v1/alert-channels/{id}/test', { params: { id: channelId } }));
                    } catch (e) {
                      setError(e as ApiError);
                    } finally {
                      setBusy(false);
                    }
                  }}
                >
                  Send test
                </button>
              )}
            </div>
          )}
          {test && (
            <p role="status" data-testid="test-outcome">
              Test {test.outcome}
              {test.statusCode !== null ? ` · HTTP ${test.statusCode}` : ''} in {test.durationMs} ms
              {test.error ? ` · ${test.error}` : ''}
            </p>
          )}
        </form>
        <section aria-labelledby="preview-title">
          <h2 id="preview-title">Preview (ALERT_FAILURE)</h2>
          {preview && (
            <>
              <code class="block">
                {preview.method} {preview.url}
              </code>
              <pre class="card" data-testid="preview-body" style="white-space:pre-wrap">
                {preview.body}
              </pre>
              {preview.warnings.map((w) => (
                <p class="muted" key={w}>
                  {w}
                </p>
              ))}
            </>
          )}
        </section>
      </div>
      {channelId && <Deliveries channelId={channelId} refresh={test} />}
    </>
  );
}

function Deliveries({ channelId, refresh }: { channelId: string; refresh: unknown }) {
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
