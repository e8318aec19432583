import type { LateRule } from './port.ts';

export interface LateSkip {
  /** The slot rewritten for the next window not late, when it is due, and how many windows were skipped. */
  slot: string;
  due: number;
  windows: number;
}

interface RunSlot {
  kind: 'run';
  window: number;
  due: number;
  every: number;
  offset: number;
  late: number;
}

function runSlot(raw: string | null): RunSlot | null {
  // Most slots of a busy queue are not late: the cheap test first, JSON only for the candidates.
  if (raw === null || !raw.includes('"every"')) return null;
  let s: Partial<RunSlot>;
  try {
    s = JSON.parse(raw) as Partial<RunSlot>;
  } catch {
    return null;
  }
  const numbers = [s.window, s.due, s.every, s.offset, s.late].every((n) => typeof n === 'number');
  return s.kind === 'run' && numbers && s.every! > 0 ? (s as RunSlot) : null;
}

/**
 * The late rule of claimDueRuns (LateRule in port.ts) for the embedded store; the Redis adapter
 * applies the same rule in its claim script. Null when the entry is to be claimed as usual.
 */
export function lateSkip(
  raw: string | null,
  score: number,
  group: string,
  now: number,
  leaseMs: number,
  rule: LateRule,
  listed: Set<string>,
): LateSkip | null {
  const s = runSlot(raw);
  if (!s) return null;
  const { window: w, every: f } = s;
  const late = Math.min(s.late, rule.lateCapMs ?? Infinity);
  if (s.due < rule.since || score >= s.due + leaseMs || now - s.due <= late || now >= w + f + leaseMs) return null;
  const spared = listed.has(group) === rule.spareListed;
  if (spared && now < w + f) return null;
  let next = Math.max(w + f, Math.floor(now / f) * f);
  while (now - (next + s.offset) > late) next += f;
  const due = next + s.offset;
  const slot = { kind: 'run', window: next, due, every: f, offset: s.offset, late: s.late };
  return { slot: JSON.stringify(slot), due, windows: Math.round((next - w) / f) };
}
