import { join } from 'node:path';
import { ConfigError } from '#core';
import type { ArtifactConfig } from './env.ts';
import { createFilesystemArtifactStore } from './filesystem.ts';
import type { ArtifactStore } from './port.ts';
import { createS3ArtifactStore } from './s3.ts';

export type { ArtifactStore, StoredArtifact } from './port.ts';
export { artifactEnv, type ArtifactConfig } from './env.ts';
export { artifactKey, dayOf, type ArtifactAddress } from './keys.ts';
export { createFilesystemArtifactStore } from './filesystem.ts';
export { createS3ArtifactStore, type S3ArtifactStoreOptions } from './s3.ts';
// The contract suite (./contract.ts) is not re-exported: it imports vitest, a dev dependency.

/** Parses s3://bucket/prefix into the bucket and a prefix without slashes at its ends. */
export function parseArtifactsUrl(url: string): { bucket: string; prefix: string } {
  const rest = url.slice('s3://'.length);
  const slash = rest.indexOf('/');
  if (slash < 0) return { bucket: rest, prefix: '' };
  return { bucket: rest.slice(0, slash), prefix: rest.slice(slash + 1).replace(/^\/+|\/+$/g, '') };
}

/** Which adapter: S3 when ARTIFACTS_URL is set, else files under DATA_DIR/artifacts. */
export function artifactAdapter(config: Pick<ArtifactConfig, 'ARTIFACTS_URL'>): 's3' | 'filesystem' {
  return config.ARTIFACTS_URL ? 's3' : 'filesystem';
}

export function createArtifactStore(config: ArtifactConfig): ArtifactStore {
  if (!config.ARTIFACTS_URL) return createFilesystemArtifactStore(join(config.DATA_DIR, 'artifacts'));
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = config;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: set both or neither');
  return createS3ArtifactStore({
    ...parseArtifactsUrl(config.ARTIFACTS_URL),
    endpoint: config.AWS_ENDPOINT_URL_S3 ?? config.AWS_ENDPOINT_URL,
    region: config.AWS_REGION,
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
  });
}
export { artifactId, keepArtifacts, type ArtifactToKeep, type RunAddress } from './keep.ts';
export {
  artifactsExpired,
  retentionCutoff,
  startRetention,
  sweepExpiredOnce,
  type RetentionOptions,
} from './retention.ts';
