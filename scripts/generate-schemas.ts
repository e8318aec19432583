import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSchemas, render } from './schemas.ts';

const root = fileURLToPath(new URL('../schemas/', import.meta.url));
for (const [name, json] of Object.entries(generateSchemas())) {
  const path = join(root, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, render(json));
}
process.stdout.write(`wrote ${Object.keys(generateSchemas()).length} schemas to schemas/\n`);
