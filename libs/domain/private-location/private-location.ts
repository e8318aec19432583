import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { idSchema, nameSchema, parseInput, timestampSchema } from '../validation.ts';

/** Prefix of private-location keys, so a leaked one is recognisable and never mistaken for an API key. */
export const PRIVATE_LOCATION_KEY_PREFIX = 'pl_';

/** Keys alive at once on one location: enough for rotation across a fleet, few enough to list. */
export const MAX_PRIVATE_LOCATION_KEYS = 10;

/** What checks list in `locations`: lower-case letters, digits and single hyphens (as Checkly's slugName). */
export const slugNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be lower-case letters, digits and single hyphens, such as office-berlin');

const iconSchema = z.string().trim().min(1).max(64).nullable().default(null);

/** The body of POST and PUT, with Checkly's field names. */
export const privateLocationInputSchema = z.object({
  name: nameSchema,
  slugName: slugNameSchema,
  /** A name from the console's icon set (Checkly: e.g. "location"); free text, only shown. */
  icon: iconSchema,
});
export type PrivateLocationInput = z.input<typeof privateLocationInputSchema>;

export const privateLocationSchema = z.object({
  id: z.uuid(),
  name: nameSchema,
  slugName: slugNameSchema,
  icon: iconSchema,
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type PrivateLocation = z.output<typeof privateLocationSchema>;

export const privateLocationKeySchema = z.object({
  id: z.uuid(),
  /** sha256 of the key, hex; the key is shown once and never stored. */
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lower-case sha256 hex digest'),
  last4: z.string().length(4),
  createdAt: timestampSchema,
  createdBy: idSchema,
});
export type PrivateLocationKey = z.output<typeof privateLocationKeySchema>;

export const privateLocationEvents = defineEvents({
  PrivateLocationCreated: z.object({ accountId: idSchema, location: privateLocationSchema }),
  PrivateLocationUpdated: z.object({ location: privateLocationSchema }),
  PrivateLocationDeleted: z.object({ at: timestampSchema }),
  PrivateLocationKeyAdded: z.object({ key: privateLocationKeySchema }),
  PrivateLocationKeyRevoked: z.object({ keyId: z.uuid(), at: timestampSchema }),
});
export type PrivateLocationEvent = EventsOf<typeof privateLocationEvents.data>;

export type PrivateLocationState =
  | { status: 'absent' }
  | { status: 'active'; accountId: string; location: PrivateLocation; keys: PrivateLocationKey[] }
  | { status: 'deleted'; accountId: string; locationId: string; deletedAt: string };

interface LocationCommand extends CommandBase {
  locationId: string;
  accountId: string;
}

/** Slugs the new slugName may not take, looked up by the application. */
interface SlugContext {
  /** Other private locations' slugs in this account. */
  takenSlugs: readonly string[];
  /** Runner (public) locations: a private slug must never make a cluster runner serve it. */
  publicLocations: readonly string[];
}

export interface CreatePrivateLocation extends LocationCommand, SlugContext {
  type: 'CreatePrivateLocation';
  location: PrivateLocationInput;
}

/** A full replacement (PUT). */
export interface UpdatePrivateLocation extends LocationCommand, SlugContext {
  type: 'UpdatePrivateLocation';
  location: PrivateLocationInput;
  /** Checks or groups of the account that list the current slug; renaming it would strand them. */
  slugInUse: boolean;
}

export interface DeletePrivateLocation extends LocationCommand {
  type: 'DeletePrivateLocation';
}

export interface AddPrivateLocationKey extends LocationCommand {
  type: 'AddPrivateLocationKey';
  keyId: string;
  hash: string;
  last4: string;
}

export interface RevokePrivateLocationKey extends LocationCommand {
  type: 'RevokePrivateLocationKey';
  keyId: string;
}

export type PrivateLocationCommand =
  | CreatePrivateLocation
  | UpdatePrivateLocation
  | DeletePrivateLocation
  | AddPrivateLocationKey
  | RevokePrivateLocationKey;

export function decidePrivateLocation(
  command: PrivateLocationCommand,
  state: PrivateLocationState,
): PrivateLocationEvent[] {
  switch (command.type) {
    case 'CreatePrivateLocation': {
      if (state.status !== 'absent') throw new ConflictError(`private location ${command.locationId} already exists`);
      const id = parseInput(z.uuid(), command.locationId, 'id');
      const input = validInput(command);
      const location = { id, ...input, createdAt: command.now, updatedAt: command.now };
      return [{ type: 'PrivateLocationCreated', data: { accountId: command.accountId, location } }];
    }
    case 'UpdatePrivateLocation': {
      const current = activeIn(state, command);
      const input = validInput(command);
      if (input.slugName !== current.location.slugName && command.slugInUse)
        throw new ConflictError(
          `slugName: checks or groups list ${JSON.stringify(current.location.slugName)} in their locations; remove it there before renaming it`,
        );
      const location = { ...current.location, ...input, updatedAt: command.now };
      return [{ type: 'PrivateLocationUpdated', data: { location } }];
    }
    case 'DeletePrivateLocation':
      activeIn(state, command);
      return [{ type: 'PrivateLocationDeleted', data: { at: command.now } }];
    case 'AddPrivateLocationKey': {
      const current = activeIn(state, command);
      if (current.keys.length >= MAX_PRIVATE_LOCATION_KEYS)
        throw new ValidationError(
          `keys: a private location holds at most ${MAX_PRIVATE_LOCATION_KEYS} keys; revoke one first`,
        );
      const key = parseInput(privateLocationKeySchema, {
        id: command.keyId,
        hash: command.hash,
        last4: command.last4,
        createdAt: command.now,
        createdBy: command.actor,
      });
      return [{ type: 'PrivateLocationKeyAdded', data: { key } }];
    }
    case 'RevokePrivateLocationKey': {
      const current = activeIn(state, command);
      if (!current.keys.some((key) => key.id === command.keyId))
        throw new NotFoundError(`key ${command.keyId} not found`);
      return [{ type: 'PrivateLocationKeyRevoked', data: { keyId: command.keyId, at: command.now } }];
    }
  }
}

function validInput(command: CreatePrivateLocation | UpdatePrivateLocation) {
  const input = parseInput(privateLocationInputSchema, command.location);
  if (command.publicLocations.includes(input.slugName))
    throw new ValidationError(`slugName: ${JSON.stringify(input.slugName)} is a runner location; choose another`);
  if (command.takenSlugs.includes(input.slugName))
    throw new ConflictError(`slugName: another private location of this account is ${JSON.stringify(input.slugName)}`);
  return input;
}

function activeIn(
  state: PrivateLocationState,
  command: LocationCommand,
): Extract<PrivateLocationState, { status: 'active' }> {
  if (state.status !== 'active' || state.accountId !== command.accountId)
    throw new NotFoundError(`private location ${command.locationId} not found`);
  return state;
}

export function evolvePrivateLocation(state: PrivateLocationState, event: PrivateLocationEvent): PrivateLocationState {
  if (event.type === 'PrivateLocationCreated')
    return { status: 'active', accountId: event.data.accountId, location: event.data.location, keys: [] };
  if (state.status !== 'active') return state;
  switch (event.type) {
    case 'PrivateLocationUpdated':
      return { ...state, location: event.data.location };
    case 'PrivateLocationDeleted':
      return {
        status: 'deleted',
        accountId: state.accountId,
        locationId: state.location.id,
        deletedAt: event.data.at,
      };
    case 'PrivateLocationKeyAdded':
      return { ...state, keys: [...state.keys, event.data.key] };
    case 'PrivateLocationKeyRevoked':
      return { ...state, keys: state.keys.filter((key) => key.id !== event.data.keyId) };
  }
}

export const privateLocationDecider: Decider<PrivateLocationCommand, PrivateLocationEvent, PrivateLocationState> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolvePrivateLocation,
  decide: decidePrivateLocation,
};
