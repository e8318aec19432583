import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { z } from 'zod';
import { alerterConfigSchema } from '../apps/alerter/index.ts';
import { apiConfigSchema } from '../apps/api/index.ts';
import { dispatcherConfigSchema } from '../apps/dispatcher/index.ts';
import { ingestorConfigSchema } from '../apps/ingestor/index.ts';
import { projectorConfigSchema } from '../apps/projector/index.ts';
import { agentConfigSchema, runnerConfigSchema } from '../apps/runner/index.ts';

/** Each app's environment in docker-compose.yml must use exactly the names its config schema reads. */
const apps: Record<string, z.ZodObject> = {
  api: apiConfigSchema,
  projector: projectorConfigSchema,
  ingestor: ingestorConfigSchema,
  alerter: alerterConfigSchema,
  dispatcher: dispatcherConfigSchema,
  runner: runnerConfigSchema,
  agent: agentConfigSchema,
};

const compose = parse(readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, string | number>; command?: string[] }>;
};

// Compose substitutes ${NAME:?message} from the operator's shell; give each a valid sample.
const samples: Record<string, string> = {
  VIGIL_ENCRYPTION_KEY: 'ab'.repeat(32),
  VIGIL_ADMIN_KEY: 'vgl_' + 'a'.repeat(43),
  VIGIL_INGEST_KEY: 'vgl_' + 'b'.repeat(43),
  VIGIL_AGENT_KEY: 'pl_' + 'c'.repeat(43),
};
const interpolate = (value: string | number) =>
  String(value).replace(/\$\{(\w+)(:?[?-][^}]*)?\}/g, (_, name: string) => samples[name] ?? '');

describe('docker-compose.yml', () => {
  it('describes the infrastructure and every server app', () => {
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining([
        'kafka',
        'clickhouse',
        'eventstoredb',
        'redis',
        'api',
        'projector',
        'ingestor',
        'alerter',
        'dispatcher',
        'runner',
        'agent',
      ]),
    );
  });

  it("gives ClickHouse the uncompressed cache Vigil's reads ask for", () => {
    const { configs } = compose as unknown as { configs: Record<string, { content: string }> };
    const mounted = (compose.services.clickhouse as { configs?: { source: string; target: string }[] }).configs ?? [];
    const cache = mounted.find((c) => c.target.startsWith('/etc/clickhouse-server/config.d/'));
    expect(cache).toBeDefined();
    const size = /<uncompressed_cache_size>(\d+)<\/uncompressed_cache_size>/.exec(configs[cache!.source]!.content);
    expect(Number(size?.[1])).toBeGreaterThanOrEqual(256 * 1024 * 1024);
  });

  for (const [app, schema] of Object.entries(apps)) {
    it(`gives ${app} only variables its config reads, and a valid set of them`, () => {
      const environment = compose.services[app]?.environment ?? {};
      const known = Object.keys(schema.shape);
      for (const name of Object.keys(environment))
        expect(known, `${app}: ${name} is not read by its config`).toContain(name);
      const env = Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, interpolate(v)]));
      const parsed = schema.safeParse(env);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      // The compiled bundle, run by node itself: no loader or npm between the signal and the app
      // (node's own flags only, such as the dispatcher's V8 flags).
      const command = compose.services[app]?.command ?? [];
      expect([command[0], command.at(-1)]).toEqual(['node', `dist/${app}.js`]);
      for (const flag of command.slice(1, -1)) expect(flag).toMatch(/^--[a-z-]+=\w+$/);
    });
  }
});
