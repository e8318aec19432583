import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DISPATCHER_NODE_FLAGS } from './node-flags.ts';

const root = new URL('../../../', import.meta.url);

describe('the dispatcher process starts with its V8 flags', () => {
  it('in npm run start:dispatcher', () => {
    const scripts = (
      JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts['start:dispatcher']).toBe(`exec node ${DISPATCHER_NODE_FLAGS.join(' ')} dist/dispatcher.js`);
  });

  it('in the compose file', () => {
    const compose = readFileSync(new URL('docker-compose.yml', root), 'utf8');
    const command = `command: [${['node', ...DISPATCHER_NODE_FLAGS, 'dist/dispatcher.js'].map((part) => `'${part}'`).join(', ')}]`;
    expect(compose).toContain(command);
  });
});
