import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

/** A span of time shaded behind the series (maintenance occurrences), in ms. */
export interface ChartBand {
  startMs: number;
  endMs: number;
}

const PALETTE = ['#2f81f7', '#d29922', '#db61a2', '#3fb950', '#a371f7', '#f0883e', '#56d4dd', '#ff7b72'];

/**
 * A uPlot time-series chart (seconds on x). uPlot draws tens of thousands of points without
 * stutter; the instance's data is also exposed on the element (`__uplot`) for browser tests.
 * `range` (seconds) fixes the x axis to the time asked for, so a band shows where it falls even
 * when no run landed there; `bands` are shaded behind the grid and the lines.
 */
export function Chart(props: {
  x: number[];
  series: ChartSeries[];
  unit: string;
  title: string;
  range?: [number, number];
  bands?: readonly ChartBand[];
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const style = getComputedStyle(document.documentElement);
    const fg = style.getPropertyValue('--muted').trim() || '#888';
    const grid = style.getPropertyValue('--border').trim() || '#ccc';
    const bandFill = style.getPropertyValue('--maintenance').trim() || 'rgba(191, 135, 0, 0.18)';
    const range = props.range;
    const bands = props.bands ?? [];
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const options: uPlot.Options = {
      width: Math.max(el.clientWidth, 280),
      height: 300,
      scales: { x: range ? { time: true, range: () => range } : { time: true } },
      axes: [axis, { ...axis, label: props.unit, size: 60 }],
      series: [
        {},
        ...props.series.map((s, i) => ({
          label: s.label,
          stroke: PALETTE[i % PALETTE.length],
          width: 1.5,
          spanGaps: false,
          // Sparse buckets are single points between gaps: draw them, or they would not show at all.
          points: { show: true, size: 5 },
          value: (_u: uPlot, v: number | null) => (v == null ? '–' : `${Math.round(v)} ${props.unit}`),
        })),
      ],
      legend: { live: true },
      hooks: {
        drawClear: [(u) => drawBands(u, bands, bandFill)],
        // The bench reads this mark: navigation → first draw that has real points.
        draw: [
          (u) => {
            if (el.dataset.drawn || !u.data.slice(1).some((values) => values.some((v) => v != null))) return;
            el.dataset.drawn = 'true';
            performance.mark('vigil:chart-drawn', { detail: { points: u.data[0].length } });
          },
        ],
      },
    };
    const plot = new uPlot(options, [props.x, ...props.series.map((s) => s.values)] as uPlot.AlignedData, el);
    (el as HTMLDivElement & { __uplot?: uPlot }).__uplot = plot;
    el.dataset.points = String(props.x.length);
    el.dataset.bands = String(bands.length);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 280), height: 300 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [props.x, props.series, props.unit, props.range?.[0], props.range?.[1], props.bands]);
  return <div class="chart" ref={ref} role="img" aria-label={props.title} />;
}

/** Shades each band's part of the plot area (canvas pixels), clipped to it. */
function drawBands(u: uPlot, bands: readonly ChartBand[], fill: string): void {
  if (bands.length === 0) return;
  const { left, top, width, height } = u.bbox;
  const ctx = u.ctx;
  ctx.save();
  ctx.fillStyle = fill;
  for (const band of bands) {
    const from = Math.max(left, u.valToPos(band.startMs / 1000, 'x', true));
    const to = Math.min(left + width, u.valToPos(band.endMs / 1000, 'x', true));
    if (to > from) ctx.fillRect(from, top, to - from, height);
  }
  ctx.restore();
}
