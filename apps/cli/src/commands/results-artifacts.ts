import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CliError } from '../errors.ts';
import type { ApiClient } from '../http.ts';

export const artifactSchema = z.looseObject({
  id: z.string(),
  kind: z.string(),
  contentType: z.string(),
  bytes: z.number(),
  sha256: z.string(),
  expired: z.boolean().optional(),
});
export type Artifact = z.infer<typeof artifactSchema>;

const EXTENSIONS: Record<string, string> = { screenshot: 'png', trace: 'zip' };

/** A file name per artifact: screenshot.png, trace.zip, response-body-2.txt; unique within a run. */
export function artifactFileName(artifact: Artifact, index: number): string {
  if (artifact.kind === 'screenshot' || artifact.kind === 'trace')
    return `${artifact.kind}${index === 0 ? '' : `-${index}`}.${EXTENSIONS[artifact.kind]}`;
  return `${artifact.kind}-${index + 1}.${artifact.contentType.includes('json') ? 'json' : 'txt'}`;
}

/**
 * Downloads a run's artifacts into `dir`, each checked against the sha256 its result names; expired
 * ones are listed, not fetched. Returns each kept file's path.
 */
export async function downloadArtifacts(
  client: ApiClient,
  runPath: string,
  artifacts: readonly Artifact[],
  dir: string,
  info: (line: string) => void,
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  const perKind = new Map<string, number>();
  for (const artifact of artifacts) {
    const index = perKind.get(artifact.kind) ?? 0;
    perKind.set(artifact.kind, index + 1);
    if (artifact.expired) {
      info(`${artifact.kind} ${artifact.id}: expired, no longer kept`);
      continue;
    }
    const body = await client.bytes(`${runPath}/artifacts/${encodeURIComponent(artifact.id)}`);
    if (createHash('sha256').update(body).digest('hex') !== artifact.sha256)
      throw new CliError(`${artifact.kind} ${artifact.id}: the download does not match its sha256`);
    const path = resolve(join(dir, artifactFileName(artifact, index)));
    await writeFile(path, body);
    written.push(path);
    info(
      artifact.kind === 'trace'
        ? `${path} (open it with: npx playwright show-trace ${JSON.stringify(path)})`
        : `${path}`,
    );
  }
  return written;
}
