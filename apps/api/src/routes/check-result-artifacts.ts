import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AnalyticsStore } from '#analytics';
import { artifactKey, artifactsExpired, type ArtifactStore } from '#artifacts';
import { ForbiddenError, NotFoundError } from '#core';
import { roleAtLeast, type ArtifactRef } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { ReadModels } from '#readmodels';
import { readRun } from '../console/runs-query.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface ArtifactRouteDeps {
  readModels: ReadModels;
  analytics: AnalyticsStore;
  artifacts: ArtifactStore;
  retentionDays: number;
}

/** The artifacts a result names, each marked expired once retention has deleted (or is about to delete) it. */
export function shownArtifacts(
  refs: readonly ArtifactRef[] | undefined,
  startedAt: string,
  retentionDays: number,
  now = new Date(),
): (ArtifactRef & { expired: boolean })[] | undefined {
  if (!refs) return undefined;
  const expired = artifactsExpired(startedAt, retentionDays, now);
  return refs.map((ref) => ({ ...ref, expired }));
}

/** Streams one artifact of one run: the screenshot inline, a trace or body as a download. */
export function checkResultArtifactRoutes(app: FastifyInstance, deps: ArtifactRouteDeps): void {
  zodRoutes(app).get('/v1/check-results/:checkId/:resultId/artifacts/:artifactId', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags: ['check results'],
      summary: "One artifact of a run: its screenshot, Playwright trace or a failing request's response body",
      description:
        'Answers the bytes themselves with the Content-Type they were kept with (image/png, application/zip for ' +
        'trace.zip, which opens with `npx playwright show-trace trace.zip`, text for response bodies). A trace may ' +
        'hold what the page was sent or typed, secrets included, so only ADMIN and OWNER read traces unless the ' +
        "check's shareArtifacts (browser.shareArtifacts for BROWSER checks) is true. Another account's artifact, and one past " +
        'VIGIL_ARTIFACT_RETENTION_DAYS, answer 404.',
      params: z.object({ checkId: z.string().max(64), resultId: z.string().max(64), artifactId: z.string().max(64) }),
      response: {
        // Bytes, not JSON: a stream is sent as it is, past the serializer.
        200: z.any().describe('The artifact itself, with the Content-Type it was kept with'),
        ...errorResponses(400, 401, 403, 404, 429),
      },
    },
    handler: async (request, reply) => {
      const access = request.access!;
      const { checkId, resultId, artifactId } = request.params;
      const notFound = (what: string) => new NotFoundError(what);
      const found = await deps.readModels.check(checkId);
      if (found === null || found.accountId !== access.accountId) throw notFound(`Check ${checkId} not found`);
      const check = found.check;
      const rid = resultId.toLowerCase();
      const aid = artifactId.toLowerCase();
      if (!UUID.test(rid)) throw notFound(`Result ${resultId} not found`);
      const run = await readRun(deps.analytics, { accountId: access.accountId, checkId: check.id, resultId: rid });
      if (!run) throw notFound(`Result ${resultId} not found`);
      const ref = run.artifacts?.find((artifact) => artifact.id === aid);
      if (!ref) throw notFound(`Artifact ${artifactId} not found`);
      const shared =
        check.checkType === 'BROWSER'
          ? check.browser?.shareArtifacts === true
          : (check.checkType === 'MULTI_STEP' || check.checkType === 'PLAYWRIGHT') && check.shareArtifacts === true;
      if (ref.kind === 'trace' && !shared && !roleAtLeast(access.role, 'ADMIN'))
        throw new ForbiddenError(
          "Traces may hold secrets typed into the page: ADMIN or OWNER only, unless the check's shareArtifacts (browser.shareArtifacts for BROWSER checks) is true",
        );
      if (artifactsExpired(run.startedAt, deps.retentionDays, new Date()))
        throw notFound(`Artifact ${artifactId} expired (kept ${deps.retentionDays} days)`);
      const key = artifactKey({
        startedAt: run.startedAt,
        accountId: access.accountId,
        checkId: check.id,
        resultId: rid,
        artifactId: aid,
      });
      const stored = await deps.artifacts.get(key);
      if (!stored) throw notFound(`Artifact ${artifactId} is no longer kept`);
      const file =
        ref.kind === 'trace' ? 'trace.zip' : ref.kind === 'screenshot' ? 'screenshot.png' : 'response-body.txt';
      const inline = ref.kind === 'screenshot';
      return reply
        .header('content-type', stored.contentType)
        .header('content-length', String(stored.bytes))
        .header('content-disposition', `${inline ? 'inline' : 'attachment'}; filename="${file}"`)
        .header('cache-control', 'private, max-age=3600')
        .header('x-artifact-sha256', ref.sha256)
        .send(stored.body);
    },
  });
}
