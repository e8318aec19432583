import { z } from 'zod';
import { InternalError } from '#core';

type DataSchemas = Record<string, z.ZodType>;

/** `{ type, data }` for each entry of a map from event type name to the zod schema of its data. */
export type EventsOf<M extends DataSchemas> = {
  [K in keyof M & string]: { type: K; data: z.output<M[K]> };
}[keyof M & string];

export interface EventDefinitions<M extends DataSchemas> {
  /** Event type name → schema of its data; merged into the lib-wide `eventSchemas` registry. */
  data: M;
  /** Discriminated union on `type`. */
  schema: z.ZodType<EventsOf<M>>;
  /**
   * Validates an event read back from the store. A stored event that does not parse is a bug or
   * corruption, never bad user input, hence InternalError.
   */
  parse(type: string, data: unknown): EventsOf<M>;
}

export function defineEvents<M extends DataSchemas>(data: M): EventDefinitions<M> {
  const options = Object.entries(data).map(([type, schema]) => z.object({ type: z.literal(type), data: schema }));
  // zod types the options as a non-empty tuple; every aggregate has at least one event.
  const schema = z.discriminatedUnion(
    'type',
    options as unknown as [z.ZodObject, ...z.ZodObject[]],
  ) as unknown as z.ZodType<EventsOf<M>>;
  return {
    data,
    schema,
    parse: (type, eventData) => parseEventData(data, type, eventData) as EventsOf<M>,
  };
}

export function parseEventData(schemas: DataSchemas, type: string, data: unknown): { type: string; data: unknown } {
  const schema = Object.hasOwn(schemas, type) ? schemas[type] : undefined;
  if (schema === undefined) throw new InternalError(`unknown event type ${JSON.stringify(type)}`);
  const result = schema.safeParse(data);
  if (!result.success) {
    throw new InternalError(`stored event ${type} does not match its schema`, {
      cause: result.error,
      details: { issues: result.error.issues },
    });
  }
  return { type, data: result.data };
}
