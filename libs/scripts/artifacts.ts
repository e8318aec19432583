/**
 * The evidence a PLAYWRIGHT run hands out: the harness writes a full-page screenshot and the
 * Playwright trace into /work on a failed test (or ALWAYS), and the runner reads exactly these two
 * names through the sandbox's readFiles channel, which opens them without following links and
 * only as regular files. The script owns /work, so whatever sits under these names is untrusted:
 * anything over its cap is refused whole (never kept cut), and each must start with its format's
 * magic bytes.
 */
import type { SandboxOutcome } from '#sandbox';

export type ArtifactsMode = 'ALWAYS' | 'ON_FAILURE' | 'NEVER';

export interface ScriptArtifact {
  kind: 'screenshot' | 'trace' | 'response-body';
  contentType: string;
  body: Buffer;
  name: string;
}

const MIB = 1024 * 1024;
/** The BROWSER probe's screenshot cap. */
export const MAX_SCREENSHOT_BYTES = 20 * MIB;
export const MAX_TRACE_BYTES = 50 * MIB;
/** A failing response's body, as the API check keeps it. */
export const MAX_BODY_BYTES = 1 * MIB;
/** The harness keeps at most 10 bodies and writes at most this many bytes of their JSON lines. */
const BODIES_FILE = '.vigil-bodies.jsonl';
const MAX_BODIES = 10;
const MAX_BODIES_FILE_BYTES = 16 * MIB;

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

interface Evidence {
  path: string;
  maxBytes: number;
  magic: Buffer;
  artifact: Omit<ScriptArtifact, 'body'>;
}

const EVIDENCE: readonly Evidence[] = [
  {
    path: '.vigil-screenshot.png',
    maxBytes: MAX_SCREENSHOT_BYTES,
    magic: PNG_MAGIC,
    artifact: { kind: 'screenshot', contentType: 'image/png', name: 'screenshot.png' },
  },
  {
    path: '.vigil-trace.zip',
    maxBytes: MAX_TRACE_BYTES,
    magic: ZIP_MAGIC,
    artifact: { kind: 'trace', contentType: 'application/zip', name: 'trace.zip' },
  },
];

/** What the sandbox reads out for evidence: one byte over each cap, so an oversized file shows as such. */
export function evidenceReads(mode: ArtifactsMode): { path: string; maxBytes: number }[] {
  return mode === 'NEVER' ? [] : EVIDENCE.map(({ path, maxBytes }) => ({ path, maxBytes: maxBytes + 1 }));
}

/** The run's evidence to keep: none for NEVER, none for a passing ON_FAILURE run, nothing invalid. */
export function collectEvidence(
  files: SandboxOutcome['files'],
  mode: ArtifactsMode,
  passed: boolean,
): ScriptArtifact[] {
  if (mode === 'NEVER' || (mode === 'ON_FAILURE' && passed)) return [];
  const out: ScriptArtifact[] = [];
  for (const { path, maxBytes, magic, artifact } of EVIDENCE) {
    const body = files?.[path];
    if (!body || body.length > maxBytes || body.length < magic.length) continue;
    if (!body.subarray(0, magic.length).equals(magic)) continue;
    out.push({ ...artifact, body });
  }
  return out;
}

/** MULTI_STEP: the failing responses' bodies file, one byte over its cap so an oversized one shows. */
export function bodiesRead(mode: ArtifactsMode): { path: string; maxBytes: number }[] {
  return mode === 'NEVER' ? [] : [{ path: BODIES_FILE, maxBytes: MAX_BODIES_FILE_BYTES + 1 }];
}

/**
 * The bodies of a failed MULTI_STEP run's failing responses, as text artifacts named by their
 * request (the probe scrubs both). Lines that are not what the harness writes are skipped; a file
 * over its cap is refused whole.
 */
export function collectBodies(files: SandboxOutcome['files'], mode: ArtifactsMode, passed: boolean): ScriptArtifact[] {
  const text = files?.[BODIES_FILE];
  if (mode === 'NEVER' || passed || !text || text.length > MAX_BODIES_FILE_BYTES) return [];
  const out: ScriptArtifact[] = [];
  for (const line of text.toString('utf8').split('\n')) {
    if (out.length >= MAX_BODIES) break;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const { method, url, body } = (parsed ?? {}) as Record<string, unknown>;
    if (typeof method !== 'string' || typeof url !== 'string' || typeof body !== 'string') continue;
    const bytes = Buffer.from(body, 'utf8');
    out.push({
      kind: 'response-body',
      contentType: 'text/plain; charset=utf-8',
      body: bytes.length > MAX_BODY_BYTES ? bytes.subarray(0, MAX_BODY_BYTES) : bytes,
      name: `${method.slice(0, 16)} ${url}`.slice(0, 256),
    });
  }
  return out;
}
