const W = 96;
const H = 24;
/** Room at every edge for the stroke and for a dot's radius: a point on the edge was cut in half. */
const PAD = 3;
const R = 2.5;

/**
 * A tiny SVG line of hourly p95; gaps (hours without runs) break the line, and a lone hour shows as
 * a dot. A check with minutes of history has one hour of data: that dot used to sit on the edge, a
 * 1.75 px half circle nobody could see.
 */
export function Sparkline({ values, label }: { values: (number | null)[]; label: string }) {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return <span class="muted">–</span>;
  const max = Math.max(...present, 1);
  // A flat series (every hour alike) runs through the middle, not along the top edge.
  const flat = present.every((v) => v === present[0]);
  const step = values.length > 1 ? (W - 2 * PAD) / (values.length - 1) : 0;
  // A single value sits in the middle rather than on an edge.
  const x0 = values.length > 1 ? PAD : W / 2;
  const at = (v: number, i: number) =>
    [(x0 + i * step).toFixed(1), (flat ? H / 2 : H - PAD - (v / max) * (H - 2 * PAD)).toFixed(1)] as const;
  let d = '';
  const dots: (readonly [string, string])[] = [];
  values.forEach((v, i) => {
    if (v === null) return;
    const [x, y] = at(v, i);
    const joined = i > 0 && values[i - 1] != null;
    d += `${joined ? 'L' : 'M'}${x} ${y} `;
    // A point with no neighbour draws no line: without a dot it would not show at all.
    if (!joined && values[i + 1] == null) dots.push([x, y]);
  });
  return (
    <svg width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} class="spark">
      <path d={d} fill="none" stroke="var(--accent)" stroke-width="1.5" stroke-linecap="round" />
      {dots.map(([x, y]) => (
        <circle key={x} cx={x} cy={y} r={R} fill="var(--accent)" />
      ))}
    </svg>
  );
}
