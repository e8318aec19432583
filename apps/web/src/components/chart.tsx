import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

const PALETTE = ['#2f81f7', '#d29922', '#db61a2', '#3fb950', '#a371f7', '#f0883e', '#56d4dd', '#ff7b72'];

/**
 * A uPlot time-series chart (seconds on x). uPlot draws tens of thousands of points without
 * stutter; the instance's data is also exposed on the element (`__uplot`) for browser tests.
 */
export function Chart(props: { x: number[]; series: ChartSeries[]; unit: string; title: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const style = getComputedStyle(document.documentElement);
    const fg = style.getPropertyValue('--muted').trim() || '#888';
    const grid = style.getPropertyValue('--border').trim() || '#ccc';
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const options: uPlot.Options = {
      width: Math.max(el.clientWidth, 280),
      height: 300,
      scales: { x: { time: true } },
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
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 280), height: 300 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [props.x, props.series, props.unit]);
  return <div class="chart" ref={ref} role="img" aria-label={props.title} />;
}
