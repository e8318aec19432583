import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import { statusPageDecider, type StatusPageEvent } from './status-page.ts';
import { statusPageSlugDecider } from './status-page-slug.ts';

const now = '2025-01-02T03:04:05.000Z';
const pageId = '7d9f8e6c-5b4a-4392-8187-6f5e4d3c2b1a';
const otherPage = '0b6c4a52-9e1d-4f3a-8c7b-2d5e6f708192';
const checkA = '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f';
const checkB = '5a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const base = { now, actor: 'u-1', pageId, accountId: 'acc-1' };
const page = { id: pageId, slug: 'acme', title: 'Acme', description: '', checkIds: [checkA], customDomain: null };
const created: StatusPageEvent = { type: 'StatusPageCreated', data: { accountId: 'acc-1', page, at: now } };

describe('status page', () => {
  it('creates a page with defaults', () => {
    const state = given(statusPageDecider)
      .when({
        ...base,
        type: 'CreateStatusPage',
        page: { slug: 'acme', title: 'Acme', checkIds: [checkA] },
        knownCheckIds: [checkA, checkB],
      })
      .thenEvents([created]);
    expect(state).toEqual({ status: 'active', accountId: 'acc-1', page, createdAt: now, updatedAt: now });
  });

  it('refuses a check the account does not have as not found, naming the field', () => {
    given(statusPageDecider)
      .when({
        ...base,
        type: 'CreateStatusPage',
        page: { slug: 'acme', title: 'Acme', checkIds: [checkA, checkB] },
        knownCheckIds: [checkA],
      })
      .thenError(NotFoundError, /^checkIds\[1\]/);
  });

  it('validates the slug, the title and duplicate checks, naming the field', () => {
    const create = (input: object) => ({
      ...base,
      type: 'CreateStatusPage' as const,
      page: input as never,
      knownCheckIds: [checkA],
    });
    given(statusPageDecider)
      .when(create({ slug: 'Not Valid', title: 'x', checkIds: [] }))
      .thenError(ValidationError, /^slug/);
    given(statusPageDecider)
      .when(create({ slug: 'ok', title: ' ', checkIds: [] }))
      .thenError(ValidationError, /^title/);
    given(statusPageDecider)
      .when(create({ slug: 'ok', title: 'x', checkIds: [checkA, checkA] }))
      .thenError(ValidationError, /^checkIds\[1\]/);
    given(statusPageDecider)
      .when(create({ slug: 'ok', title: 'x', checkIds: [], customDomain: 'http://x' }))
      .thenError(ValidationError, /^customDomain/);
  });

  it('replaces a page on update and keeps its id', () => {
    const state = given(statusPageDecider, [created])
      .when({
        ...base,
        now: '2025-01-03T00:00:00.000Z',
        type: 'UpdateStatusPage',
        page: { slug: 'acme-2', title: 'New', checkIds: [checkB], customDomain: 'status.acme.com' },
        knownCheckIds: [checkB],
      })
      .thenEvents([
        {
          type: 'StatusPageUpdated',
          data: {
            page: { ...page, slug: 'acme-2', title: 'New', checkIds: [checkB], customDomain: 'status.acme.com' },
            at: '2025-01-03T00:00:00.000Z',
          },
        },
      ]);
    expect(state).toMatchObject({ status: 'active', createdAt: now, updatedAt: '2025-01-03T00:00:00.000Z' });
  });

  it('answers another account exactly like a missing page', () => {
    const update = { ...base, accountId: 'acc-2', type: 'UpdateStatusPage' as const, page, knownCheckIds: [checkA] };
    given(statusPageDecider, [created])
      .when(update)
      .thenError(NotFoundError, /not found/);
    given(statusPageDecider)
      .when({ ...update, accountId: 'acc-1' })
      .thenError(NotFoundError, /not found/);
    given(statusPageDecider, [created])
      .when({ ...base, accountId: 'acc-2', type: 'DeleteStatusPage' })
      .thenError(NotFoundError, /not found/);
  });

  it('deletes once, keeping the slug to release', () => {
    const state = given(statusPageDecider, [created])
      .when({ ...base, type: 'DeleteStatusPage' })
      .thenEvents([{ type: 'StatusPageDeleted', data: { at: now } }]);
    expect(state).toEqual({ status: 'deleted', accountId: 'acc-1', pageId, slug: 'acme', deletedAt: now });
    given(statusPageDecider, [created, { type: 'StatusPageDeleted', data: { at: now } }])
      .when({ ...base, type: 'DeleteStatusPage' })
      .thenError(NotFoundError);
  });

  it('refuses to create a page twice', () => {
    given(statusPageDecider, [created])
      .when({ ...base, type: 'CreateStatusPage', page, knownCheckIds: [checkA] })
      .thenError(ConflictError);
  });
});

describe('status page slug', () => {
  const reserve = { now, actor: 'u-1', type: 'ReserveStatusPageSlug' as const, slug: 'acme', pageId };
  const reserved = { type: 'StatusPageSlugReserved' as const, data: { slug: 'acme', pageId } };

  it('reserves a free slug, and again for the same page is a no-op', () => {
    expect(given(statusPageSlugDecider).when(reserve).thenEvents([reserved])).toEqual({ reservedBy: pageId });
    given(statusPageSlugDecider, [reserved]).when(reserve).thenEvents([]);
  });

  it('refuses a slug another page holds with a conflict naming the slug', () => {
    given(statusPageSlugDecider, [reserved])
      .when({ ...reserve, pageId: otherPage })
      .thenError(ConflictError, /^slug: acme is already taken/);
  });

  it('releases only for the holder, and a released slug can be taken again', () => {
    const release = { ...reserve, type: 'ReleaseStatusPageSlug' as const };
    given(statusPageSlugDecider, [reserved])
      .when({ ...release, pageId: otherPage })
      .thenEvents([]);
    const released = { type: 'StatusPageSlugReleased' as const, data: { slug: 'acme', pageId } };
    given(statusPageSlugDecider, [reserved]).when(release).thenEvents([released]);
    given(statusPageSlugDecider, [reserved, released])
      .when({ ...reserve, pageId: otherPage })
      .thenEvents([{ type: 'StatusPageSlugReserved', data: { slug: 'acme', pageId: otherPage } }]);
  });
});
