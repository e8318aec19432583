import { z } from 'zod';
import { alertEventJsonSchema } from '#alerting';
import { checkResultJsonSchema, eventSchemas } from '#domain';

/**
 * Every JSON Schema in schemas/, generated from the zod types that validate the same data, so
 * the two cannot drift: a test regenerates them and compares with the committed files.
 */
export function generateSchemas(): Record<string, unknown> {
  const files: Record<string, unknown> = {
    'check-result.v1.json': {
      $id: 'https://vigil.dev/schemas/check-result.v1.json',
      title: 'Check result v1',
      description: 'A check result on topic vigil.check-results.v1 (key = checkId) and in POST /v1/check-results.',
      ...checkResultJsonSchema(),
    },
  };
  files['alert-event.v1.json'] = {
    $id: 'https://vigil.dev/schemas/alert-event.v1.json',
    title: 'Alert event v1',
    description: 'An alert decided by the alerter, on topic vigil.alert-events.v1 (key = checkId).',
    ...alertEventJsonSchema(),
  };
  for (const [type, schema] of Object.entries(eventSchemas).sort(([a], [b]) => a.localeCompare(b))) {
    files[`events/${type}.v1.json`] = {
      $id: `https://vigil.dev/schemas/events/${type}.v1.json`,
      title: `${type} event data, schema version 1`,
      ...z.toJSONSchema(schema as z.ZodType, { io: 'output', unrepresentable: 'any' }),
    };
  }
  return files;
}

export function render(json: unknown): string {
  return JSON.stringify(json, null, 2) + '\n';
}
