import { z } from 'zod';
import { ConflictError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { parseInput } from '../validation.ts';
import { statusPageSlugSchema } from './status-page.ts';

/**
 * One stream per slug (`status-page-slug-<slug>`), like email reservations: slugs are unique
 * across accounts because the public URL has no account in it. A page reserves its slug before
 * it is created or renamed, and releases the old one after a rename or a delete.
 */
export const statusPageSlugEvents = defineEvents({
  StatusPageSlugReserved: z.object({ slug: statusPageSlugSchema, pageId: z.uuid() }),
  StatusPageSlugReleased: z.object({ slug: statusPageSlugSchema, pageId: z.uuid() }),
});
export type StatusPageSlugEvent = EventsOf<typeof statusPageSlugEvents.data>;

export type StatusPageSlugState = { reservedBy: string | null };

export interface ReserveStatusPageSlug extends CommandBase {
  type: 'ReserveStatusPageSlug';
  slug: string;
  pageId: string;
}

export interface ReleaseStatusPageSlug extends CommandBase {
  type: 'ReleaseStatusPageSlug';
  slug: string;
  pageId: string;
}

export type StatusPageSlugCommand = ReserveStatusPageSlug | ReleaseStatusPageSlug;

export function decideStatusPageSlug(
  command: StatusPageSlugCommand,
  state: StatusPageSlugState,
): StatusPageSlugEvent[] {
  const input = parseInput(z.object({ slug: statusPageSlugSchema, pageId: z.uuid() }), {
    slug: command.slug,
    pageId: command.pageId,
  });
  if (command.type === 'ReserveStatusPageSlug') {
    if (state.reservedBy === input.pageId) return [];
    if (state.reservedBy !== null) throw new ConflictError(`slug: ${input.slug} is already taken`);
    return [{ type: 'StatusPageSlugReserved', data: input }];
  }
  // Only the holder releases; anything else is a no-op, so a retried release is harmless.
  return state.reservedBy === input.pageId ? [{ type: 'StatusPageSlugReleased', data: input }] : [];
}

export function evolveStatusPageSlug(state: StatusPageSlugState, event: StatusPageSlugEvent): StatusPageSlugState {
  switch (event.type) {
    case 'StatusPageSlugReserved':
      return state.reservedBy === null ? { reservedBy: event.data.pageId } : state;
    case 'StatusPageSlugReleased':
      return state.reservedBy === event.data.pageId ? { reservedBy: null } : state;
  }
}

export const statusPageSlugDecider: Decider<StatusPageSlugCommand, StatusPageSlugEvent, StatusPageSlugState> = {
  initialState: () => ({ reservedBy: null }),
  evolve: evolveStatusPageSlug,
  decide: decideStatusPageSlug,
};
