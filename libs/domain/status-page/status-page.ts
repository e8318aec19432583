import { z } from 'zod';
import { ConflictError, NotFoundError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { idSchema, parseInput, timestampSchema } from '../validation.ts';

/** Lower-case letters, digits and inner hyphens: the slug is a path segment of the public URL. */
export const statusPageSlugSchema = z
  .string()
  .min(2)
  .max(64)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'lower-case letters, digits and inner hyphens only');

const statusPageFields = {
  slug: statusPageSlugSchema,
  title: z.string().trim().min(1).max(120),
  description: z.string().max(2000).default(''),
  checkIds: z
    .array(z.uuid())
    .max(100)
    .superRefine((ids, ctx) => {
      const seen = new Set<string>();
      ids.forEach((id, index) => {
        if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [index], message: `duplicate check id ${id}` });
        seen.add(id);
      });
    }),
  customDomain: z
    .string()
    .max(253)
    .regex(/^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'a host name like status.acme.com')
    .nullable()
    .default(null),
};

/** The body of POST and PUT: everything but the id. */
export const statusPageInputSchema = z.object(statusPageFields);
export type StatusPageInput = z.input<typeof statusPageInputSchema>;

export const statusPageSchema = z.object({ id: z.uuid(), ...statusPageFields });
export type StatusPage = z.output<typeof statusPageSchema>;

export const statusPageEvents = defineEvents({
  StatusPageCreated: z.object({ accountId: idSchema, page: statusPageSchema, at: timestampSchema }),
  StatusPageUpdated: z.object({ page: statusPageSchema, at: timestampSchema }),
  StatusPageDeleted: z.object({ at: timestampSchema }),
});
export type StatusPageEvent = EventsOf<typeof statusPageEvents.data>;

export type StatusPageState =
  | { status: 'absent' }
  | { status: 'active'; accountId: string; page: StatusPage; createdAt: string; updatedAt: string }
  | { status: 'deleted'; accountId: string; pageId: string; slug: string; deletedAt: string };

export interface CreateStatusPage extends CommandBase {
  type: 'CreateStatusPage';
  pageId: string;
  accountId: string;
  page: StatusPageInput;
  /** Checks of this account among page.checkIds, looked up by the application; any other id is refused. */
  knownCheckIds: readonly string[];
}

/** A full replacement (PUT). */
export interface UpdateStatusPage extends CommandBase {
  type: 'UpdateStatusPage';
  pageId: string;
  accountId: string;
  page: StatusPageInput;
  knownCheckIds: readonly string[];
}

export interface DeleteStatusPage extends CommandBase {
  type: 'DeleteStatusPage';
  pageId: string;
  accountId: string;
}

export type StatusPageCommand = CreateStatusPage | UpdateStatusPage | DeleteStatusPage;

export function decideStatusPage(command: StatusPageCommand, state: StatusPageState): StatusPageEvent[] {
  switch (command.type) {
    case 'CreateStatusPage': {
      if (state.status !== 'absent') throw new ConflictError(`status page ${command.pageId} already exists`);
      const id = parseInput(z.uuid(), command.pageId, 'id');
      const page: StatusPage = { id, ...validInput(command) };
      return [{ type: 'StatusPageCreated', data: { accountId: command.accountId, page, at: command.now } }];
    }
    case 'UpdateStatusPage': {
      const current = activeIn(state, command);
      const page: StatusPage = { id: current.page.id, ...validInput(command) };
      return [{ type: 'StatusPageUpdated', data: { page, at: command.now } }];
    }
    case 'DeleteStatusPage':
      activeIn(state, command);
      return [{ type: 'StatusPageDeleted', data: { at: command.now } }];
  }
}

function validInput(command: CreateStatusPage | UpdateStatusPage): Omit<StatusPage, 'id'> {
  const input = parseInput(statusPageInputSchema, command.page);
  const known = new Set(command.knownCheckIds);
  // A foreign check id is refused exactly like an unknown one, so a page cannot probe other tenants.
  const unknown = input.checkIds.findIndex((id) => !known.has(id));
  if (unknown >= 0) {
    throw new NotFoundError(`checkIds[${unknown}]: check ${input.checkIds[unknown]} not found`);
  }
  return input;
}

function activeIn(
  state: StatusPageState,
  command: { pageId: string; accountId: string },
): Extract<StatusPageState, { status: 'active' }> {
  if (state.status !== 'active' || state.accountId !== command.accountId)
    throw new NotFoundError(`status page ${command.pageId} not found`);
  return state;
}

export function evolveStatusPage(state: StatusPageState, event: StatusPageEvent): StatusPageState {
  switch (event.type) {
    case 'StatusPageCreated':
      return {
        status: 'active',
        accountId: event.data.accountId,
        page: event.data.page,
        createdAt: event.data.at,
        updatedAt: event.data.at,
      };
    case 'StatusPageUpdated':
      return state.status === 'active' ? { ...state, page: event.data.page, updatedAt: event.data.at } : state;
    case 'StatusPageDeleted':
      return state.status === 'active'
        ? {
            status: 'deleted',
            accountId: state.accountId,
            pageId: state.page.id,
            slug: state.page.slug,
            deletedAt: event.data.at,
          }
        : state;
  }
}

export const statusPageDecider: Decider<StatusPageCommand, StatusPageEvent, StatusPageState> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveStatusPage,
  decide: decideStatusPage,
};
