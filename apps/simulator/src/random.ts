/**
 * A small seeded random source. Math.random cannot be seeded, and the simulator promises that
 * the same --seed gives the same checks and the same results, so everything random goes through
 * one of these.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  between(min: number, max: number): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by relative weight; weights need not sum to 1. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T;
  /** Standard normal (mean 0, deviation 1). */
  normal(): number;
  /** Log-normal with the given median; sigma is the deviation of its logarithm. */
  logNormal(median: number, sigma: number): number;
  /** A random version-4 UUID, from this source rather than the system's. */
  uuid(): string;
  /** A shuffled copy (Fisher-Yates). */
  shuffled<T>(items: readonly T[]): T[];
}

export function createRng(seed: string | number): Rng {
  const [a, b, c, d] = hashSeed(String(seed));
  const next = sfc32(a, b, c, d);
  // Discard the first outputs: sfc32 mixes poorly right after seeding.
  for (let i = 0; i < 15; i++) next();

  const rng: Rng = {
    next,
    between: (min, max) => min + next() * (max - min),
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick(items) {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    weighted(entries) {
      const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
      let point = next() * total;
      for (const [item, weight] of entries) {
        point -= weight;
        if (point < 0) return item;
      }
      const last = entries[entries.length - 1];
      if (!last) throw new Error('weighted pick from an empty list');
      return last[0];
    },
    normal() {
      // Box-Muller; 1 - next() keeps the logarithm away from 0.
      const u = 1 - next();
      const v = next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    logNormal: (median, sigma) => median * Math.exp(sigma * rng.normal()),
    uuid() {
      const hex: string[] = [];
      for (let i = 0; i < 4; i++) hex.push(((next() * 0x1_0000_0000) >>> 0).toString(16).padStart(8, '0'));
      const raw = hex.join('');
      const variant = ((parseInt(raw[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
      return `${raw.slice(0, 8)}-${raw.slice(8, 12)}-4${raw.slice(13, 16)}-${variant}${raw.slice(17, 20)}-${raw.slice(20, 32)}`;
    },
    shuffled: (items) => shuffle(items, next),
  };
  return rng;
}

function shuffle<U>(items: readonly U[], next: () => number): U[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    const held = copy[i] as U;
    copy[i] = copy[j] as U;
    copy[j] = held;
  }
  return copy;
}
/** cyrb128: spreads a seed string over the 128 bits of state sfc32 needs. */
function hashSeed(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

function sfc32(a: number, b: number, c: number, d: number): () => number {
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}
