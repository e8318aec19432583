import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiError, Body } from '../api.ts';
import { call, canWrite, session } from '../api.ts';
import { Field } from '../components/field.tsx';
import { navigate } from '../router.ts';
import { Deliveries } from './channel-deliveries.tsx';
import { ChannelFormFooter, useSendTest } from './channel-test.tsx';
import { labelOf, SERVICE_FIELDS, type Channel, type FieldSpec, type ServiceType } from './channel-types.ts';

const MASK = '********';

/** What each type sends, so the user knows what the receiving end will see. */
const ABOUT: Record<ServiceType, string> = {
  EMAIL: 'An HTML email with a plain-text part, through the SMTP relay the server is configured with.',
  SLACK: 'A Block Kit message with a plain-text fallback, posted to the incoming webhook.',
  PAGERDUTY: 'An Events API v2 trigger per check; the recovery resolves the same incident.',
  OPSGENIE: 'An alert per check, created with your API key; the recovery closes it by alias.',
  MSTEAMS: 'An Adaptive Card, posted to a Workflows webhook.',
  DISCORD: 'A message with an embed, posted to the channel webhook.',
  TELEGRAM: 'A sendMessage call (HTML) from your bot to the chat.',
};

const SEND_FLAGS = [
  ['sendFailure', 'Failures'],
  ['sendRecovery', 'Recoveries'],
  ['sendDegraded', 'Degraded runs'],
] as const;
type SendFlag = (typeof SEND_FLAGS)[number][0];

/**
 * The editor of every type but WEBHOOK: the type's own fields, the alerts it gets, and its
 * secret as a write-only field (left empty, the stored secret stays).
 */
export function ServiceEditor(props: { type: ServiceType; channel?: Channel; picker?: ComponentChildren }) {
  const { type, channel } = props;
  const fields = SERVICE_FIELDS[type];
  const stored = (channel?.config ?? {}) as Record<string, unknown>;
  const writable = canWrite(session());
  const [name, setName] = useState(typeof stored.name === 'string' ? stored.name : '');
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.key, f.kind === 'secret' ? '' : String(stored[f.key] ?? f.initial ?? '')])),
  );
  const [send, setSend] = useState<Record<SendFlag, boolean>>({
    sendFailure: channel?.sendFailure ?? true,
    sendRecovery: channel?.sendRecovery ?? true,
    sendDegraded: channel?.sendDegraded ?? false,
  });
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const test = useSendTest(channel?.id);

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      const config: Record<string, unknown> = { name };
      for (const f of fields) {
        const value = values[f.key]!.trim();
        // An empty secret is left out: the API keeps the stored one.
        if (f.kind === 'secret') {
          if (value) config[f.key] = value;
        } else config[f.key] = value === '' && f.optional ? null : value;
      }
      const kept = channel ? { sslExpiry: channel.sslExpiry, sslExpiryThreshold: channel.sslExpiryThreshold } : {};
      // The API checks each type's fields and names the one that is wrong.
      const body = { type, config, ...send, ...kept } as Body<'POST /v1/alert-channels'>;
      const saved = channel
        ? await call('PUT /v1/alert-channels/{id}', { params: { id: channel.id }, body })
        : await call('POST /v1/alert-channels', { body });
      navigate(`/alert-channels/${saved.id}`);
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>{channel ? name || labelOf(type) : `New ${labelOf(type)} channel`}</h1>
      <div class="grid two">
        <form
          class="grid"
          aria-label={`${labelOf(type)} channel`}
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          {props.picker}
          <Field label="Name" name="config.name" error={error}>
            <input
              name="name"
              value={name}
              disabled={!writable}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </Field>
          {fields.map((f) => (
            <Field key={f.key} label={fieldLabel(f)} name={`config.${f.key}`} error={error}>
              <Control
                spec={f}
                value={values[f.key]!}
                isSet={stored[f.key] === MASK}
                disabled={!writable}
                onChange={(value) => setValues((v) => ({ ...v, [f.key]: value }))}
              />
            </Field>
          ))}
          <fieldset>
            <legend>Send alerts for</legend>
            {SEND_FLAGS.map(([flag, label]) => (
              <label class="inline" key={flag}>
                <input
                  type="checkbox"
                  name={flag}
                  checked={send[flag]}
                  disabled={!writable}
                  onChange={(e) => setSend((s) => ({ ...s, [flag]: (e.target as HTMLInputElement).checked }))}
                />{' '}
                {label}
              </label>
            ))}
          </fieldset>
          <ChannelFormFooter error={error} writable={writable} busy={busy} test={test} />
        </form>
        <section aria-labelledby="about-title">
          <h2 id="about-title">What a {labelOf(type)} channel sends</h2>
          <p class="muted">{ABOUT[type]}</p>
          {channel && channel.problems.length > 0 && (
            <ul data-testid="problems">
              {channel.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
        </section>
      </div>
      {channel && <Deliveries channelId={channel.id} refresh={test.outcome} />}
    </>
  );
}

const fieldLabel = (f: FieldSpec) => (f.kind === 'secret' ? `${f.label} (write-only)` : f.label);

function Control(props: {
  spec: FieldSpec;
  value: string;
  isSet: boolean;
  disabled: boolean;
  onChange: (value: string) => void;
}) {
  const { spec, value, disabled } = props;
  const onInput = (e: Event) => props.onChange((e.target as HTMLInputElement | HTMLSelectElement).value);
  if (spec.kind === 'select')
    return (
      <select name={spec.key} value={value} disabled={disabled} onChange={onInput}>
        {spec.options!.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    );
  const common = { name: spec.key, value, disabled, onInput };
  // A stored secret is never sent to the browser: the placeholder only says that one is set.
  if (spec.kind === 'secret')
    return (
      <input
        {...common}
        type="password"
        autocomplete="new-password"
        placeholder={props.isSet ? 'set: leave empty to keep it' : spec.placeholder}
      />
    );
  // Plain text with a matching keyboard: the API's message, not the browser's, says what is wrong.
  const inputMode = spec.kind === 'text' ? undefined : spec.kind;
  return <input {...common} type="text" inputMode={inputMode} autocomplete="off" placeholder={spec.placeholder} />;
}
