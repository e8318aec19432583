/**
 * V8 flags the dispatcher process starts with (`npm run start:dispatcher` and the compose file
 * pass them on its command line: V8 sizes the young generation when the process starts, so they
 * cannot be set from inside; node-flags.test.ts checks both places; bench/webhooks runs with them).
 *
 * --max-semi-space-size=32 (MiB, Node 20's default is 16): every delivery allocates its render,
 * request and record, most of it dead within milliseconds; a larger young generation lets more of
 * it die there instead of being copied and promoted. Webhooks bench, 3,000 alerts × 10 channels,
 * three alternating pairs at load 1.7 (2026-11-28): CPU per delivery 86.5 -> 80.6 µs with every
 * endpoint answering and 118.2 -> 113.2 µs with 2 of 10 failing first (means), for up to 64 MiB
 * more young generation (two semi-spaces of 32 instead of 16), reserved only as the heap grows.
 */
export const DISPATCHER_NODE_FLAGS = ['--max-semi-space-size=32'] as const;
