/** A tiny SVG line of hourly p95; gaps (hours without runs) break the line. */
export function Sparkline({ values, label }: { values: (number | null)[]; label: string }) {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return <span class="muted">–</span>;
  const max = Math.max(...present, 1);
  const w = 96;
  const h = 24;
  const step = values.length > 1 ? w / (values.length - 1) : w;
  let d = '';
  let pen = false;
  values.forEach((v, i) => {
    if (v === null) {
      pen = false;
      return;
    }
    const x = (i * step).toFixed(1);
    const y = (h - 2 - (v / max) * (h - 4)).toFixed(1);
    d += `${pen ? 'L' : 'M'}${x} ${y} `;
    pen = true;
  });
  return (
    <svg width={w} height={h} role="img" aria-label={label} class="spark">
      <path d={d} fill="none" stroke="var(--accent)" stroke-width="1.5" />
    </svg>
  );
}
