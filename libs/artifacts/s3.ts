import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { UnavailableError } from '#core';
import { assertDay, assertKey, isKey } from './keys.ts';
import type { ArtifactStore } from './port.ts';

export interface S3ArtifactStoreOptions {
  bucket: string;
  /** Prefix of every object key, without slashes at either end; '' for none. */
  prefix: string;
  /** An S3-compatible server's URL (path-style requests); unset, AWS itself. */
  endpoint?: string;
  region: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * Deletes at once. One DeleteObject per key, not DeleteObjects: the batch call needs a checksum
 * header that S3-compatible servers (s3proxy 2.6) do not implement, and retention batches are bounded.
 */
const DELETE_CONCURRENCY = 16;

const notFound = (error: unknown) =>
  error instanceof S3ServiceException &&
  (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404);

/** Driver errors become the project's own: the store is unavailable, the message says which call. */
function unavailable(call: string, error: unknown): UnavailableError {
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new UnavailableError(`artifact store (S3 ${call}) failed: ${detail}`, { cause: error });
}

/** Artifacts as objects of one bucket under a prefix: `ARTIFACTS_URL=s3://bucket/prefix`. */
export function createS3ArtifactStore(options: S3ArtifactStoreOptions): ArtifactStore {
  const client = new S3Client({
    region: options.region,
    // Checksums only where the API requires them: S3-compatible servers (s3proxy 2.6) refuse the
    // flexible-checksum headers the SDK otherwise sends on every PutObject.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  const Bucket = options.bucket;
  const base = options.prefix ? `${options.prefix}/` : '';
  const objectKey = (key: string) => {
    assertKey(key);
    return base + key;
  };

  return {
    async put(key, body, contentType) {
      const Key = objectKey(key);
      try {
        // The exact type rides in user metadata: s3proxy's Jetty rewrites a Content-Type's parameters
        // (charset=utf-8 → UTF-8), which breaks the signature, so the header carries the bare media type.
        await client.send(
          new PutObjectCommand({
            Bucket,
            Key,
            Body: body,
            ContentLength: body.length,
            ContentType: contentType.split(';')[0]!.trim(),
            Metadata: { 'content-type': contentType },
          }),
        );
      } catch (error) {
        throw unavailable('PutObject', error);
      }
    },
    async get(key) {
      const Key = objectKey(key);
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key }));
        return {
          body: out.Body as Readable,
          contentType: out.Metadata?.['content-type'] ?? out.ContentType ?? 'application/octet-stream',
          bytes: out.ContentLength ?? 0,
        };
      } catch (error) {
        if (notFound(error)) return null;
        throw unavailable('GetObject', error);
      }
    },
    async delete(keys) {
      const pending = keys.map(objectKey);
      const worker = async () => {
        for (let Key = pending.pop(); Key !== undefined; Key = pending.pop()) {
          try {
            await client.send(new DeleteObjectCommand({ Bucket, Key }));
          } catch (error) {
            if (!notFound(error)) throw unavailable('DeleteObject', error);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, pending.length) }, worker));
    },
    async listBefore(beforeDay, limit) {
      assertDay(beforeDay);
      const keys: string[] = [];
      let token: string | undefined;
      // Keys sort by day, so the listing stops at the first key of a day still kept.
      do {
        let out;
        try {
          out = await client.send(
            new ListObjectsV2Command({
              Bucket,
              Prefix: base,
              MaxKeys: Math.min(1000, limit - keys.length),
              ContinuationToken: token,
            }),
          );
        } catch (error) {
          throw unavailable('ListObjectsV2', error);
        }
        for (const object of out.Contents ?? []) {
          const key = (object.Key ?? '').slice(base.length);
          if (key.slice(0, 10) >= beforeDay) return keys;
          // Another writer's object under the same prefix is not ours to expire.
          if (isKey(key)) keys.push(key);
        }
        token = out.IsTruncated ? out.NextContinuationToken : undefined;
      } while (token && keys.length < limit);
      return keys;
    },
    async ping() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (error) {
        throw unavailable('HeadBucket', error);
      }
    },
    async close() {
      client.destroy();
    },
  };
}
