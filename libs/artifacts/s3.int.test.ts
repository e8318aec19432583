import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '#core';
import { services, uniqueSuffix } from '#test-support';
import { artifactStoreContract } from './contract.ts';
import { createArtifactStore, parseArtifactsUrl } from './index.ts';

/** A bucket of this suite's own on the loopback S3 server, and the store's config for it. */
async function bucketConfig(prefix: string) {
  const { S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey } = services();
  const s3 = { endpoint, accessKeyId, secretAccessKey };
  const bucket = `vigil-test-${uniqueSuffix()}`;
  const client = new S3Client({
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    DATA_DIR: '/nonexistent',
    ARTIFACTS_URL: `s3://${bucket}${prefix}`,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL: undefined,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    VIGIL_ARTIFACT_RETENTION_DAYS: 30,
  };
}

artifactStoreContract('s3', async () => createArtifactStore(await bucketConfig('/runs/artifacts')));
artifactStoreContract('s3 without prefix', async () => createArtifactStore(await bucketConfig('')));

describe('s3 artifact store', () => {
  it('reads the bucket and prefix from ARTIFACTS_URL', () => {
    expect(parseArtifactsUrl('s3://b')).toEqual({ bucket: 'b', prefix: '' });
    expect(parseArtifactsUrl('s3://b/a/c/')).toEqual({ bucket: 'b', prefix: 'a/c' });
  });

  it('turns a missing bucket and wrong credentials into UnavailableError', async () => {
    const config = await bucketConfig('');
    const missing = createArtifactStore({ ...config, ARTIFACTS_URL: `s3://vigil-missing-${uniqueSuffix()}` });
    await expect(missing.ping()).rejects.toBeInstanceOf(UnavailableError);
    await missing.close();
    const wrong = createArtifactStore({ ...config, AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
    const key = `2020-01-01/${Array(4).fill('00000000-0000-4000-8000-000000000000').join('/')}`;
    await expect(wrong.put(key, Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(UnavailableError);
    await wrong.close();
  });
});
