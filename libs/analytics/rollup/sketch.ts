import { sqlNumber, type SqlDialect } from '../sql.ts';

/**
 * The percentile sketch kept in rollups: a histogram over logarithmic buckets (the DDSketch
 * mapping). Bucket k holds the values in (γ^(k-1), γ^k] with γ = (1 + α) / (1 - α); its
 * representative value 2γ^k / (γ + 1) is within α (relative) of every value in it. Histograms
 * merge by adding counts per key, so hours sum into days and locations into the whole check, on
 * any engine, as two plain arrays (keys, counts).
 *
 * Error bound: a percentile read from the sketch is within α = 1% (relative) of a sample at the
 * same rank, for positive samples; zero and negative samples land in ZERO_KEY and read as 0.
 * The reader interpolates between ranks as the exact path does (numpy's linear method) and
 * clamps to the cell's exact min and max.
 */
export const SKETCH_ALPHA = 0.01;
const GAMMA = (1 + SKETCH_ALPHA) / (1 - SKETCH_ALPHA);
const LN_GAMMA = Math.log(GAMMA);
/** Key of samples ≤ 0 (a timing of 0 ms is common on loopback). */
export const ZERO_KEY = -2_147_483_648;

/** SQL for a sample's bucket key; `value` must not be NULL. */
export function sketchKeySql(value: string, dialect: SqlDialect): string {
  const lnGamma = sqlNumber(LN_GAMMA);
  if (dialect === 'clickhouse')
    return `toInt32(if(${value} > 0, toInt32(ceil(log(${value}) / ${lnGamma})), toInt32(${ZERO_KEY})))`;
  return `CAST(CASE WHEN ${value} > 0 THEN CAST(ceil(ln(${value}) / ${lnGamma}) AS INTEGER) ELSE ${ZERO_KEY} END AS INTEGER)`;
}

export function sketchKey(value: number): number {
  return value > 0 ? Math.ceil(Math.log(value) / LN_GAMMA) : ZERO_KEY;
}

export function keyValue(key: number): number {
  return key === ZERO_KEY ? 0 : (2 * GAMMA ** key) / (GAMMA + 1);
}

/** A merged histogram: counts per key. */
export type Sketch = Map<number, number>;

export function addToSketch(sketch: Sketch, keys: readonly unknown[], counts: readonly unknown[]): void {
  keys.forEach((key, i) => {
    const k = Number(key);
    sketch.set(k, (sketch.get(k) ?? 0) + Number(counts[i]));
  });
}

/**
 * The q-quantile (0 ≤ q ≤ 1) with linear interpolation between the closest ranks, reading each
 * rank's value from its bucket; null for an empty sketch.
 */
export function sketchQuantile(sketch: Sketch, q: number, bounds: { min: number; max: number }): number | null {
  const keys = [...sketch.keys()].sort((a, b) => a - b);
  const total = keys.reduce((sum, key) => sum + sketch.get(key)!, 0);
  if (total === 0) return null;
  const h = (total - 1) * q;
  const lower = Math.floor(h);
  const upper = Math.min(lower + 1, total - 1);
  const at = (rank: number): number => {
    let seen = 0;
    for (const key of keys) {
      seen += sketch.get(key)!;
      if (rank < seen) return Math.min(bounds.max, Math.max(bounds.min, keyValue(key)));
    }
    return bounds.max;
  };
  const low = at(lower);
  return low + (h - lower) * (at(upper) - low);
}
