import { useState } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import { call } from '../api.ts';
import type { Operations } from '../api.gen.ts';
import { errorOutsideFields } from '../components/field.tsx';

type TestOutcome = Operations['POST /v1/alert-channels/{id}/test']['response'];

/**
 * "Send test" for a saved channel of any type: the API sends a sample ALERT_FAILURE now. The
 * button goes with the form's buttons and the outcome below them, so both are handed back.
 */
export function useSendTest(channelId: string | undefined) {
  const [outcome, setOutcome] = useState<TestOutcome | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async () => {
    if (!channelId) return;
    setBusy(true);
    setError(null);
    try {
      setOutcome(await call('POST /v1/alert-channels/{id}/test', { params: { id: channelId } }));
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const button = channelId ? (
    <button type="button" disabled={busy} onClick={() => void send()}>
      Send test
    </button>
  ) : null;
  const result = error ? (
    <p class="error-box" role="alert">
      {error.message}
    </p>
  ) : outcome ? (
    <p role="status" data-testid="test-outcome">
      Test {outcome.outcome}
      {outcome.statusCode !== null ? ` · HTTP ${outcome.statusCode}` : ''} in {outcome.durationMs} ms
      {outcome.error ? ` · ${outcome.error}` : ''}
    </p>
  ) : null;
  return { button, result, outcome };
}

/**
 * The end of every channel form: a save error that no field shows, Save beside Send test (for
 * those who may write), then the test's outcome.
 */
export function ChannelFormFooter(props: {
  error: ApiError | null;
  writable: boolean;
  busy: boolean;
  test: ReturnType<typeof useSendTest>;
}) {
  return (
    <>
      {errorOutsideFields(props.error, ['config']) && (
        <p class="error-box" role="alert">
          {props.error!.message}
        </p>
      )}
      {props.writable && (
        <div class="row">
          <button class="primary" type="submit" disabled={props.busy}>
            Save
          </button>
          {props.test.button}
        </div>
      )}
      {props.test.result}
    </>
  );
}
