import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ValidationError } from '#core';

export const runtimeSchema = z
  .object({
    name: z.string().regex(/^\d{4}\.\d{2}$/),
    multiStepSupport: z.boolean(),
    nodeJsVersion: z.string().regex(/^v\d+\.\d+\.\d+$/),
    dependencies: z.record(z.string(), z.string()),
    stage: z.enum(['ALPHA', 'BETA', 'CURRENT', 'DEPRECATED', 'REMOVED', 'STABLE']),
    runtimeEndOfLife: z.iso.date(),
    description: z.string(),
  })
  .meta({ id: 'Runtime' });
export type Runtime = z.infer<typeof runtimeSchema>;

/** The catalogue is a data file, validated when loaded, newest first. */
export function loadRuntimes(path = new URL('./runtimes.json', import.meta.url)): Runtime[] {
  const runtimes = z.array(runtimeSchema).parse(JSON.parse(readFileSync(path, 'utf8')));
  return runtimes.sort((a, b) => b.name.localeCompare(a.name));
}

export class RuntimeCatalogue {
  private readonly byName: Map<string, Runtime>;
  constructor(readonly runtimes: Runtime[]) {
    this.byName = new Map(runtimes.map((runtime) => [runtime.name, runtime]));
  }

  get(name: string): Runtime | undefined {
    return this.byName.get(name);
  }

  /** The runtime new accounts get when they name none. */
  get current(): Runtime {
    const current = this.runtimes.find((runtime) => runtime.stage === 'CURRENT');
    if (!current) throw new Error('the runtime catalogue has no CURRENT runtime');
    return current;
  }

  /** Accounts and checks may only name a runtime that exists and is not removed. */
  assertUsable(name: string, field = 'runtimeId'): void {
    const runtime = this.byName.get(name);
    if (!runtime) throw new ValidationError(`${field}: unknown runtime "${name}"; see GET /v1/runtimes`);
    if (runtime.stage === 'REMOVED') throw new ValidationError(`${field}: runtime "${name}" has been removed`);
  }
}
