import { z } from 'zod';
import { InternalError, ValidationError } from '#core';
import { eventMetadataSchema, type NewEvent, type RecordedEvent } from './port.ts';

const dataSchema = z.record(z.string(), z.unknown());

const newEventSchema = z.object({
  id: z.string().min(1),
  // Types starting with '$' are EventStoreDB system events, which subscriptions filter out.
  type: z
    .string()
    .min(1)
    .refine((type) => !type.startsWith('$'), 'must not start with $'),
  data: dataSchema,
  metadata: eventMetadataSchema,
});

/**
 * Rejects what could not be read back: both adapters validate events on the way in, so a
 * stored event that fails decoding means corruption, not a caller's mistake.
 */
export function checkNewEvents(stream: string, events: NewEvent[]): void {
  if (stream.length === 0 || stream.startsWith('$')) {
    throw new ValidationError(`stream: invalid stream name "${stream}" (empty or starts with $)`);
  }
  if (events.length === 0) throw new ValidationError(`events: an append to ${stream} needs at least one event`);
  const ids = new Set<string>();
  events.forEach((event, index) => {
    const result = newEventSchema.safeParse(event);
    if (!result.success) {
      const issue = result.error.issues[0];
      const path = [index, ...(issue?.path ?? [])].join('.');
      throw new ValidationError(`events.${path}: ${issue?.message ?? 'invalid event'}`);
    }
    if (ids.has(event.id))
      throw new ValidationError(`events.${index}.id: duplicate event id ${event.id} in one append`);
    ids.add(event.id);
  });
}

const storedSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  data: dataSchema,
  metadata: eventMetadataSchema,
  stream: z.string().min(1),
  revision: z.number().int().min(0),
  position: z.bigint().positive(),
});

/** Validates an event read back from a store; a bad one raises an error naming where it sits. */
export function decodeStoredEvent(raw: {
  id: unknown;
  type: unknown;
  data: unknown;
  metadata: unknown;
  stream: unknown;
  revision: unknown;
  position: unknown;
}): RecordedEvent {
  const result = storedSchema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(event)'}: ${issue.message}`);
  throw corruptEvent(raw, problems.join('; '));
}

export function corruptEvent(
  raw: { stream: unknown; revision: unknown; position: unknown },
  problem: string,
  cause?: unknown,
): InternalError {
  return new InternalError(
    `Corrupt event in the event store at position ${String(raw.position)} (stream ${String(raw.stream)}, revision ${String(raw.revision)}): ${problem}`,
    { cause, details: { position: String(raw.position), stream: String(raw.stream), revision: String(raw.revision) } },
  );
}

/** JSON.parse that turns a syntax error into a corrupt-event error. */
export function parseStoredJson(
  text: unknown,
  field: string,
  raw: { stream: unknown; revision: unknown; position: unknown },
): unknown {
  if (typeof text !== 'string') throw corruptEvent(raw, `${field} is not text`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw corruptEvent(raw, `${field} is not valid JSON`, error);
  }
}
