import { useState } from 'preact/hooks';
import type { Check } from '../api.gen.ts';

/** A heartbeat check's ping URL, with what it expects and how to report a failure. */
export function HeartbeatPanel({ check }: { check: Check }) {
  const heartbeat = (
    check as { heartbeat?: { pingUrl?: string; period: number; periodUnit: string; grace: number; graceUnit: string } }
  ).heartbeat;
  const [copied, setCopied] = useState(false);
  if (!heartbeat?.pingUrl) return <p class="muted">This heartbeat has no ping URL (external check).</p>;
  return (
    <section class="card" aria-labelledby="ping-title">
      <h2 id="ping-title">Ping URL</h2>
      <div class="row">
        <code class="block" data-testid="ping-url">
          {heartbeat.pingUrl}
        </code>
        <button
          onClick={async () => {
            await navigator.clipboard.writeText(heartbeat.pingUrl!).catch(() => undefined);
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p class="muted">
        Expected every {heartbeat.period} {heartbeat.periodUnit}, with {heartbeat.grace} {heartbeat.graceUnit} grace.{' '}
        <code>curl {heartbeat.pingUrl}</code>; append <code>/fail</code> to report a failure.
      </p>
    </section>
  );
}
