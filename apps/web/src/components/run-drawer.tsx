import { useEffect, useRef } from 'preact/hooks';
import { call } from '../api.ts';
import type { Check, CheckRunResult } from '../api.gen.ts';
import { useAsync } from '../hooks.ts';
import { RunArtifacts } from './run-artifacts.tsx';
import { ScriptDetails } from './script-details.tsx';

const PHASES = [
  ['wait', 'Wait'],
  ['dns', 'DNS'],
  ['tcp', 'TCP connect'],
  ['connection', 'Connection'],
  ['firstByte', 'First byte'],
  ['download', 'Download'],
  ['data', 'Data'],
] as const;

type Assertion = { source: string; property?: string; comparison: string; target?: string };
type Outcome = NonNullable<CheckRunResult['assertions']>[number];

const describe = (a: Assertion) =>
  `${a.source}${a.property ? ` ${a.property}` : ''} ${a.comparison}${a.target ? ` ${a.target}` : ''}`;

function assertionsOf(check: Check): Assertion[] {
  const request = (check as { request?: { assertions?: Assertion[] } }).request;
  return request?.assertions ?? [];
}

/** One run: timings as a waterfall, assertions, error, SSL days left and pages. Escape closes it. */
export function RunDrawer(props: { check: Check; runId: string; onClose: () => void }) {
  const run = useAsync(
    () =>
      call('GET /v1/check-results/{checkId}/{resultId}', {
        params: { checkId: props.check.id, resultId: props.runId },
      }),
    [props.check.id, props.runId],
  );
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && props.onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [props.runId]);
  const r = run.data;
  const phases = r
    ? PHASES.map(([key, label]) => [label, r.timings[key] ?? null] as const).filter(([, v]) => v !== null)
    : [];
  const totalMs = r
    ? Math.max(
        r.responseTime,
        phases.reduce((sum, [, v]) => sum + (v ?? 0), 0),
        1,
      )
    : 1;
  let offset = 0;
  return (
    <aside class="drawer" role="complementary" aria-labelledby="run-title">
      <div class="row">
        <h2 id="run-title" tabIndex={-1} ref={heading}>
          Run {props.runId.slice(0, 8)}
        </h2>
        <span class="spacer" />
        <button onClick={props.onClose} aria-label="Close run">
          Close
        </button>
      </div>
      {run.error && <p class="error-box">{run.error.message}</p>}
      {r && (
        <div class="grid">
          <p>
            <span class={`status-text ${r.hasFailures ? 'failing' : r.isDegraded ? 'degraded' : 'passing'}`}>
              {r.hasFailures ? 'Failed' : r.isDegraded ? 'Degraded' : 'Passed'}
            </span>{' '}
            at {new Date(r.startedAt).toLocaleString()} from {r.runLocation} in {Math.round(r.responseTime)} ms
            {r.statusCode !== null && ` · HTTP ${r.statusCode}${r.statusText ? ` ${r.statusText}` : ''}`}
            {r.attempts > 1 && ` · ${r.attempts} attempts`}
            {r.heartbeatStatus && ` · ping ${r.heartbeatStatus}`}
          </p>
          {r.errorMessage && (
            <div>
              <h3>Error</h3>
              <pre class="error-box" data-testid="run-error">
                {r.errorMessage}
              </pre>
            </div>
          )}
          {r.artifacts && r.artifacts.length > 0 && (
            <RunArtifacts checkId={props.check.id} runId={props.runId} artifacts={r.artifacts} />
          )}
          <ScriptDetails sources={[r]} />
          <div>
            <h3>Timings</h3>
            {phases.length === 0 ? (
              <p class="muted">This run reported no phase timings.</p>
            ) : (
              <div class="waterfall" aria-label="Timing waterfall">
                {phases.map(([label, value]) => {
                  const left = (offset / totalMs) * 100;
                  const width = Math.max(((value ?? 0) / totalMs) * 100, 0.5);
                  offset += value ?? 0;
                  return (
                    <>
                      <span>{label}</span>
                      <span class="track">
                        <span class="seg" style={`left:${left}%;width:${width}%`} />
                      </span>
                      <span>{Math.round(value ?? 0)} ms</span>
                    </>
                  );
                })}
              </div>
            )}
          </div>
          <div>
            <h3>Assertions</h3>
            <Assertions check={props.check} stored={r.assertions ?? null} />
          </div>
          <div>
            <h3>SSL</h3>
            <p>
              {r.ssl ? (
                <>
                  Certificate for {r.ssl.domain ?? 'the host'} expires in <strong>{r.ssl.daysRemaining} days</strong>
                </>
              ) : (
                <span class="muted">No certificate information.</span>
              )}
            </p>
          </div>
          {r.pages.length > 0 && (
            <div>
              <h3>Pages</h3>
              <table>
                <thead>
                  <tr>
                    <th>URL</th>
                    <th>FCP</th>
                    <th>LCP</th>
                    <th>CLS</th>
                    <th>TBT</th>
                    <th>Errors</th>
                  </tr>
                </thead>
                <tbody>
                  {r.pages.map((p) => (
                    <tr key={p.index}>
                      <td>{p.url}</td>
                      <td>{p.FCP ?? '–'}</td>
                      <td>{p.LCP ?? '–'}</td>
                      <td>{p.CLS ?? '–'}</td>
                      <td>{p.TBT ?? '–'}</td>
                      <td>{p.consoleErrors + p.networkErrors}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      )}
    </aside>
  );
}

/**
 * Each assertion's outcome as the run stored it (actual value and message included). A run that
 * stored none (an external producer's, or one from before outcomes were kept) lists the check's
 * assertions without a verdict rather than guessing one.
 */
function Assertions(props: { check: Check; stored: Outcome[] | null }) {
  if (props.stored && props.stored.length > 0)
    return (
      <ul class="assertions">
        {props.stored.map((a, i) => (
          <li key={i} data-outcome={a.passed ? 'passed' : 'failed'}>
            <span class={`status-text ${a.passed ? 'passing' : 'failing'}`}>{a.passed ? '✓ passed' : '✗ failed'}</span>{' '}
            <code>{describe(a)}</code>
            <span class="muted">
              {' '}
              · actual <code>{a.actual === '' ? '(empty)' : a.actual}</code>
              {/* A failed comparison's message only repeats the actual value; an error says something new. */}
              {a.message && a.message !== `actual ${a.actual}` && ` · ${a.message}`}
            </span>
          </li>
        ))}
      </ul>
    );
  const defined = assertionsOf(props.check);
  if (defined.length === 0)
    return <p class="muted">{props.check.checkType === 'URL' ? 'Any 2xx status passes.' : 'No assertions defined.'}</p>;
  return (
    <>
      <p class="muted">This run did not record assertion outcomes.</p>
      <ul class="assertions">
        {defined.map((a, i) => (
          <li key={i} data-outcome="unknown">
            <code>{describe(a)}</code>
          </li>
        ))}
      </ul>
    </>
  );
}
