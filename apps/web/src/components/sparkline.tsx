/** A tiny SVG line of hourly p95; gaps (hours without runs) break the line, and a lone hour shows as a dot. */
export function Sparkline({ values, label }: { values: (number | null)[]; label: string }) {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return <span class="muted">–</span>;
  const max = Math.max(...present, 1);
  const w = 96;
  const h = 24;
  const step = values.length > 1 ? w / (values.length - 1) : w;
  const at = (v: number, i: number) => [(i * step).toFixed(1), (h - 2 - (v / max) * (h - 4)).toFixed(1)] as const;
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
    <svg width={w} height={h} role="img" aria-label={label} class="spark">
      <path d={d} fill="none" stroke="var(--accent)" stroke-width="1.5" />
      {dots.map(([x, y]) => (
        <circle key={x} cx={x} cy={y} r="1.75" fill="var(--accent)" />
      ))}
    </svg>
  );
}
