import { useEffect, useState } from 'preact/hooks';
import { session } from '../api.ts';
import type { CheckRunResult } from '../api.gen.ts';

type Artifact = NonNullable<CheckRunResult['artifacts']>[number];

/** An artifact's bytes with the session's key (an <img src> or link could not send it). */
async function fetchArtifact(url: string): Promise<Blob> {
  const s = session();
  const headers: Record<string, string> = {};
  if (s) {
    headers.authorization = `Bearer ${s.key}`;
    headers['x-service-account'] = s.accountId;
  }
  const response = await fetch(url, { headers });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { message?: string } | null;
    throw new Error(body?.message ?? response.statusText);
  }
  return response.blob();
}

const sizeOf = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.max(1, Math.round(bytes / 1024))} KiB`;

function Screenshot(props: { url: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let objectUrl: string | null = null;
    fetchArtifact(props.url).then(
      (blob) => setSrc((objectUrl = URL.createObjectURL(blob))),
      (e: Error) => setError(e.message),
    );
    return () => {
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [props.url]);
  if (error) return <p class="error-box">Screenshot: {error}</p>;
  if (!src) return <p class="muted">Loading the screenshot…</p>;
  return (
    <a href={src} target="_blank" rel="noopener">
      <img
        class="run-screenshot"
        src={src}
        alt="Screenshot of the page at the end of the run"
        data-testid="run-screenshot"
      />
    </a>
  );
}

function Download(props: { url: string; artifact: Artifact; file: string }) {
  const [error, setError] = useState<string | null>(null);
  const save = async () => {
    try {
      const blob = await fetchArtifact(props.url);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = props.file;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <li>
      <button type="button" onClick={() => void save()} data-testid={`download-${props.artifact.kind}`}>
        Download {props.file}
      </button>{' '}
      <span class="muted">{sizeOf(props.artifact.bytes)}</span>
      {props.artifact.kind === 'trace' && (
        <p class="muted">
          Open it in Playwright's trace viewer: <code>npx playwright show-trace {props.file}</code>
        </p>
      )}
      {error && <p class="error-box">{error}</p>}
    </li>
  );
}

/** The evidence a run kept: its screenshot inline, the trace and response bodies as downloads. */
export function RunArtifacts(props: { checkId: string; runId: string; artifacts: Artifact[] }) {
  const base = `/v1/check-results/${encodeURIComponent(props.checkId)}/${encodeURIComponent(props.runId)}/artifacts/`;
  const kept = props.artifacts.filter((a) => !a.expired);
  const screenshot = kept.find((a) => a.kind === 'screenshot');
  const files = kept.filter((a) => a.kind !== 'screenshot');
  return (
    <div data-testid="run-artifacts">
      <h3>Artifacts</h3>
      {kept.length < props.artifacts.length && (
        <p class="muted">
          {props.artifacts.length - kept.length} artifact(s) of this run are past their retention and no longer kept.
        </p>
      )}
      {screenshot && <Screenshot url={base + screenshot.id} />}
      {files.length > 0 && (
        <ul class="artifact-files">
          {files.map((a, i) => (
            <Download
              key={a.id}
              url={base + a.id}
              artifact={a}
              file={a.kind === 'trace' ? 'trace.zip' : `response-body-${i + 1}.txt`}
            />
          ))}
        </ul>
      )}
    </div>
  );
}
