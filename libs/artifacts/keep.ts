import { createHash } from 'node:crypto';
import type { ArtifactKind, ArtifactRef } from '#domain';
import { artifactKey } from './keys.ts';
import type { ArtifactStore } from './port.ts';

export interface ArtifactToKeep {
  kind: ArtifactKind;
  contentType: string;
  body: Buffer;
  name?: string;
}

export interface RunAddress {
  id: string;
  accountId: string;
  checkId: string;
  startedAt: string;
}

/** A UUID made from the run and the artifact's place in it: a repeated run overwrites, never adds. */
export function artifactId(resultId: string, index: number, kind: ArtifactKind): string {
  const hex = createHash('sha256').update(`${resultId}:${index}:${kind}`).digest('hex');
  // Version 5-shaped (name-based), variant 10xx, so it passes every UUID check.
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Writes a run's artifacts and returns what its result names. Every write has finished when this
 * resolves, so a result published after it never points at a missing artifact.
 */
export async function keepArtifacts(
  store: ArtifactStore,
  run: RunAddress,
  artifacts: readonly ArtifactToKeep[],
): Promise<ArtifactRef[]> {
  return Promise.all(
    artifacts.map(async (artifact, index): Promise<ArtifactRef> => {
      const id = artifactId(run.id, index, artifact.kind);
      const key = artifactKey({
        startedAt: run.startedAt,
        accountId: run.accountId,
        checkId: run.checkId,
        resultId: run.id,
        artifactId: id,
      });
      await store.put(key, artifact.body, artifact.contentType);
      return {
        id,
        kind: artifact.kind,
        contentType: artifact.contentType,
        bytes: artifact.body.length,
        sha256: createHash('sha256').update(artifact.body).digest('hex'),
        ...(artifact.name === undefined ? {} : { name: artifact.name }),
      };
    }),
  );
}
