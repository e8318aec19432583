import { z } from 'zod';
import { env } from '#core';

/** s3://bucket or s3://bucket/prefix (the prefix without slashes at its ends). */
const s3Url = z
  .string()
  .regex(/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^\s]*)?$/, 'expected s3://bucket or s3://bucket/prefix');

/**
 * Where run artifacts are kept, read by every app that writes or serves them (runner, API,
 * standalone). The AWS variables are the usual ones, read here so a bad value names itself.
 */
export const artifactEnv = {
  /** Unset: files under DATA_DIR/artifacts. */
  ARTIFACTS_URL: s3Url.optional(),
  /** An S3-compatible server (MinIO, s3proxy, Ceph…); unset, AWS's own endpoint for the region. */
  AWS_ENDPOINT_URL_S3: env.url(['http', 'https']).optional(),
  AWS_ENDPOINT_URL: env.url(['http', 'https']).optional(),
  AWS_REGION: z.string().min(1).max(64).default('us-east-1'),
  /** Both or neither; neither leaves the SDK's own chain (instance role, profile…). */
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Artifacts older than this many days are deleted (results keep their entries, marked expired). */
  VIGIL_ARTIFACT_RETENTION_DAYS: env.int(30, 1, 3650),
};

export type ArtifactConfig = z.output<z.ZodObject<typeof artifactEnv>> & { DATA_DIR: string };
