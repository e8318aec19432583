import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { env, parseConfig } from './config.ts';
import { ConfigError } from './errors.ts';

const schema = z.object({
  PORT: env.port(3000),
  DEBUG: env.bool(false),
  REDIS_URL: env.url(['redis']).optional(),
  KAFKA_BROKERS: env.list().optional(),
});

describe('parseConfig', () => {
  it('applies defaults and coerces', () => {
    expect(parseConfig(schema, { PORT: '8080', DEBUG: 'true' })).toEqual({ PORT: 8080, DEBUG: true });
    expect(parseConfig(schema, {})).toEqual({ PORT: 3000, DEBUG: false });
  });

  it('treats an empty variable as unset', () => {
    expect(parseConfig(schema, { REDIS_URL: '' }).REDIS_URL).toBeUndefined();
  });

  it('splits lists', () => {
    expect(parseConfig(schema, { KAFKA_BROKERS: 'a:1, b:2' }).KAFKA_BROKERS).toEqual(['a:1', 'b:2']);
  });

  it('names every bad variable', () => {
    const attempt = () => parseConfig(schema, { PORT: 'eighty', REDIS_URL: 'http://x' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/PORT/);
    expect(attempt).toThrow(/REDIS_URL/);
  });
});
