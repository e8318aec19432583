import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ApiError, Body } from '../api.ts';
import { call, canWrite, session } from '../api.ts';
import type { Operations } from '../api.gen.ts';
import { Field } from '../components/field.tsx';
import { navigate } from '../router.ts';
import { Deliveries } from './channel-deliveries.tsx';
import { ChannelFormFooter, useSendTest } from './channel-test.tsx';
import type { Channel } from './channel-types.ts';

type Preview = Operations['POST /v1/alert-channels/preview']['response'];
type Method = Extract<Channel, { type: 'WEBHOOK' }>['config']['method'];

const SAMPLE_TEMPLATE = '{\n  "check": "{{CHECK_NAME}}",\n  "type": "{{ALERT_TYPE}}",\n  "link": "{{RESULT_LINK}}"\n}';

/** The template error's position, from the API's message ("… line 3, column 7 …"). */
function position(message: string): string | null {
  const m = /line (\d+)(?:,? column (\d+))?/i.exec(message);
  return m ? `Line ${m[1]}${m[2] ? `, column ${m[2]}` : ''}` : null;
}

/**
 * The webhook editor: URL, method, secret and a Handlebars template with a live preview. What it
 * does not show (headers, query parameters, the send flags) is sent back as stored, so saving
 * here never drops what the CLI or the API set.
 */
export function WebhookEditor({
  channel,
  picker,
}: {
  channel?: Extract<Channel, { type: 'WEBHOOK' }>;
  picker?: ComponentChildren;
}) {
  const channelId = channel?.id;
  const writable = canWrite(session());
  const [name, setName] = useState(channel?.config.name ?? '');
  const [url, setUrl] = useState(channel?.config.url ?? '');
  const [method, setMethod] = useState<Method>(channel?.config.method ?? 'POST');
  const [template, setTemplate] = useState(channel ? (channel.config.template ?? '') : SAMPLE_TEMPLATE);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [previewError, setPreviewError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const test = useSendTest(channelId);
  const methods: Method[] = ['POST', 'PUT', 'GET'];
  if (!methods.includes(method)) methods.push(method);
  const config = () => ({
    name: name || 'Preview',
    url: url || 'https://example.com/hook',
    method,
    headers: channel?.config.headers ?? [],
    queryParameters: channel?.config.queryParameters ?? [],
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
      const kept = channel
        ? {
            sendFailure: channel.sendFailure,
            sendRecovery: channel.sendRecovery,
            sendDegraded: channel.sendDegraded,
            sslExpiry: channel.sslExpiry,
            sslExpiryThreshold: channel.sslExpiryThreshold,
          }
        : {};
      // Left out, the stored secret stays.
      const body: Body<'POST /v1/alert-channels'> = {
        type: 'WEBHOOK',
        config: { ...config(), name, url, ...(secret ? { webhookSecret: secret } : {}) },
        ...kept,
      };
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
          {picker}
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
              onChange={(e) => setMethod((e.target as HTMLSelectElement).value as Method)}
            >
              {methods.map((m) => (
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
              autocomplete="new-password"
              onInput={(e) => setSecret((e.target as HTMLInputElement).value)}
              placeholder={channel?.config.webhookSecret ? 'set: leave empty to keep it' : 'optional, e.g. whsec_…'}
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
          <ChannelFormFooter error={error} writable={writable} busy={busy} test={test} />
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
      {channelId && <Deliveries channelId={channelId} refresh={test.outcome} />}
    </>
  );
}
