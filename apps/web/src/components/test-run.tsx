import type { CheckRun } from '../api.gen.ts';
import { ScriptDetails } from './script-details.tsx';

/** The answer of POST /v1/checks/test: outcome, assertions, error and, for a script, its steps, requests and logs. */
export function TestRun({ run }: { run: CheckRun }) {
  return (
    <div class="card grid" data-testid="test-run">
      <p>
        <span class={`status-text ${run.result.hasFailures ? 'failing' : 'passing'}`}>
          {run.result.hasFailures ? 'Failed' : 'Passed'}
        </span>{' '}
        in {Math.round(run.result.responseTime)} ms
        {run.result.statusCode ? ` · HTTP ${run.result.statusCode}` : ''}
      </p>
      {run.assertions.length > 0 && (
        <ul>
          {run.assertions.map((a, i) => (
            <li key={i} data-outcome={a.passed ? 'passed' : 'failed'}>
              {a.passed ? '✓' : '✗'}{' '}
              <code>
                {a.assertion.source} {a.assertion.property ?? ''} {a.assertion.comparison} {a.assertion.target ?? ''}
              </code>{' '}
              — actual {a.actual}
            </li>
          ))}
        </ul>
      )}
      {run.result.errorMessage && <pre class="error-box">{run.result.errorMessage}</pre>}
      <ScriptDetails sources={[run.result, run]} />
    </div>
  );
}
