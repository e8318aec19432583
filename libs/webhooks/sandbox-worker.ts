import { parentPort } from 'node:worker_threads';
import { renderTemplates, type WebhookChannelConfig } from './render.ts';
import { validateTemplate } from './template.ts';
import type { RenderOptions } from './helpers.ts';
import type { TemplateVariables } from './variables.ts';

// The template sandbox's thread: parses, compiles and renders user templates away from the
// event loop that serves requests. Messages are validated by shape on the main side, which
// owns both ends; errors go back as plain data.

type Job =
  | { id: number; op: 'validate'; fields: { field: string; source: string }[] }
  | { id: number; op: 'render'; config: WebhookChannelConfig; variables: TemplateVariables; options: RenderOptions };

function run(job: Job): unknown {
  if (job.op === 'validate') {
    for (const { field, source } of job.fields) {
      const result = validateTemplate(source);
      if (!result.ok) return { field, line: result.line, column: result.column, message: result.message };
    }
    return null;
  }
  return renderTemplates(job.config, job.variables, job.options);
}

parentPort?.on('message', (job: Job) => {
  try {
    parentPort!.postMessage({ id: job.id, ok: true, value: run(job) });
  } catch (error) {
    const failure = error as { name?: string; message?: string; details?: unknown };
    parentPort!.postMessage({
      id: job.id,
      ok: false,
      error: { name: failure.name ?? 'Error', message: failure.message ?? String(error), details: failure.details },
    });
  }
});
parentPort?.postMessage({ ready: true });
