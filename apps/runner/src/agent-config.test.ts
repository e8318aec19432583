import { describe, expect, it } from 'vitest';
import { ConfigError } from '#core';
import { loadAgentConfig } from './agent-config.ts';

const key = `pl_${'a'.repeat(43)}`;

describe('agent config', () => {
  it('needs only the API URL and a location key; the address policy is lifted by default', () => {
    const config = loadAgentConfig({ VIGIL_API_URL: 'https://vigil.example.com', VIGIL_AGENT_KEY: key });
    expect(config).toMatchObject({ JOB_CONCURRENCY: 10, VIGIL_AGENT_ENFORCE_ADDRESS_POLICY: false });
  });

  it.each([
    [{ VIGIL_AGENT_KEY: key }, /VIGIL_API_URL/],
    [{ VIGIL_API_URL: 'ftp://x', VIGIL_AGENT_KEY: key }, /VIGIL_API_URL: expected a http or https URL/],
    [{ VIGIL_API_URL: 'https://x' }, /VIGIL_AGENT_KEY/],
    [
      { VIGIL_API_URL: 'https://x', VIGIL_AGENT_KEY: `vgl_${'a'.repeat(43)}` },
      /VIGIL_AGENT_KEY: must be a private-location key/,
    ],
    [{ VIGIL_API_URL: 'https://x', VIGIL_AGENT_KEY: key, JOB_CONCURRENCY: '0' }, /JOB_CONCURRENCY/],
  ])('names the bad variable (%j)', (source, message) => {
    expect(() => loadAgentConfig(source)).toThrow(ConfigError);
    expect(() => loadAgentConfig(source)).toThrow(message);
  });
});
