import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { InternalError, ValidationError } from '#core';
import type { RenderOptions } from './helpers.ts';
import type { RenderedWebhook, WebhookChannelConfig } from './render.ts';
import type { TemplateVariables } from './variables.ts';

/** The longest a sandboxed job (parse, compile and render) may run before its thread is stopped. */
export const TEMPLATE_SANDBOX_TIMEOUT_MS = 2000;

export interface TemplateFieldIssue {
  field: string;
  line: number;
  column: number;
  message: string;
}

/**
 * Parses and renders user templates on worker threads, so that however long one takes, the
 * event loop serving other requests never waits for it. A job that runs past its timeout has
 * its thread terminated (a new one takes its place) and fails with a ValidationError.
 */
export interface TemplateSandbox {
  /** The first field whose template is not valid, or null. */
  validate(fields: { field: string; source: string }[]): Promise<TemplateFieldIssue | null>;
  render(config: WebhookChannelConfig, variables: TemplateVariables, options?: RenderOptions): Promise<RenderedWebhook>;
  close(): Promise<void>;
}

interface Pending {
  id: number;
  message: Record<string, unknown>;
  what: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  /** The thread has loaded its modules; a job's clock starts only then. */
  ready: boolean;
  job: Pending | undefined;
  timer: NodeJS.Timeout | undefined;
}

type Reply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { name: string; message: string; details?: Record<string, unknown> } };

const workerUrl = new URL('./sandbox-worker.ts', import.meta.url);
const tsxApi = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
);

// Set by the compiled build (scripts/build-server.mjs): the worker is a sibling bundle there.
const distDir = (globalThis as { __vigilDist?: string }).__vigilDist;

function spawn(): Worker {
  if (distDir) {
    const compiled = new Worker(new URL('sandbox-worker.js', distDir));
    compiled.unref();
    return compiled;
  }
  // The thread loads the TypeScript sources the way the process does: through tsx's loader,
  // registered inside the thread (a worker does not inherit --import hooks).
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi.href)}; register(); await import(${JSON.stringify(workerUrl.href)});`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`));
  worker.unref();
  return worker;
}

export function createTemplateSandbox(options: { threads?: number; timeoutMs?: number } = {}): TemplateSandbox {
  const timeoutMs = options.timeoutMs ?? TEMPLATE_SANDBOX_TIMEOUT_MS;
  const queue: Pending[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;

  const attach = (slot: Slot) => {
    slot.worker.on('message', (reply: Reply | { ready: true }) => {
      if ('ready' in reply) {
        slot.ready = true;
        return pump();
      }
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      finish(slot);
      if (reply.ok) job.resolve(reply.value);
      else if (reply.error.name === 'ValidationError')
        job.reject(new ValidationError(reply.error.message, { details: reply.error.details }));
      else job.reject(new InternalError(`${job.what} failed in the template sandbox: ${reply.error.message}`));
    });
    slot.worker.on('error', (error) =>
      replace(slot, new InternalError(`template sandbox thread failed: ${error.message}`)),
    );
  };

  const newSlot = (): Slot => {
    const slot: Slot = { worker: spawn(), ready: false, job: undefined, timer: undefined };
    attach(slot);
    return slot;
  };

  const finish = (slot: Slot) => {
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    setImmediate(pump);
  };

  /** Stops a thread that is stuck or broken; its job fails, a fresh thread takes the slot. */
  const replace = (slot: Slot, error: Error) => {
    const job = slot.job;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    slot.worker.removeAllListeners();
    void slot.worker.terminate();
    if (!closed) {
      slot.ready = false;
      slot.worker = spawn();
      attach(slot);
    }
    job?.reject(error);
    setImmediate(pump);
  };

  const pump = () => {
    for (const slot of slots) {
      if (!slot.ready || slot.job || queue.length === 0 || closed) continue;
      const job = queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(
        () =>
          replace(
            slot,
            new ValidationError(
              `${job.what}: the template took longer than ${timeoutMs} ms to parse and render; simplify it`,
            ),
          ),
        timeoutMs,
      );
      slot.worker.postMessage({ ...job.message, id: job.id });
    }
  };

  for (let i = 0; i < (options.threads ?? 1); i++) slots.push(newSlot());

  const submit = <T>(what: string, message: Record<string, unknown>): Promise<T> => {
    if (closed) return Promise.reject(new InternalError('the template sandbox is closed'));
    return new Promise<T>((resolve, reject) => {
      queue.push({ id: nextId++, message, what, resolve: resolve as (value: unknown) => void, reject });
      pump();
    });
  };

  return {
    validate: (fields) => submit('template', { op: 'validate', fields }),
    render: (config, variables, renderOptions = {}) =>
      submit('config', { op: 'render', config, variables, options: renderOptions }),
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new InternalError('the template sandbox is closed'));
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}
