#!/usr/bin/env node
// The CLI ships as TypeScript, like the rest of Vigil: tsx compiles it on load (and caches the result).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv);
