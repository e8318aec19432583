import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import type { Sample } from './sampler.ts';

const require = createRequire(import.meta.url);
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2'];

/** One uPlot data table: x in minutes, one column per process (null where a sample is missing). */
export function series(samples: readonly Sample[], field: 'rssMiB' | 'loopP99Ms') {
  const apps = [...new Set(samples.map((s) => s.app))];
  const times = [...new Set(samples.map((s) => s.t))].sort((a, b) => a - b);
  const columns = apps.map((app) => times.map((t) => samples.find((s) => s.app === app && s.t === t)?.[field] ?? null));
  return { apps, data: [times.map((t) => Math.round((t / 60) * 100) / 100), ...columns] };
}

/**
 * Renders RSS and event-loop delay p99 per process with uPlot in headless Chromium (no network:
 * the library is inlined from node_modules) and saves a PNG.
 */
export async function plot(
  samples: readonly Sample[],
  title: string,
  baselineMinute: number,
  file: string,
  chromiumPath = '/usr/bin/chromium',
): Promise<void> {
  const script = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
  const css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  const charts = [
    { ...series(samples, 'rssMiB'), label: 'RSS (MiB)', heading: 'RSS per process (VmRSS, every sample)' },
    {
      ...series(samples, 'loopP99Ms'),
      label: 'p99 (ms)',
      heading: 'Event-loop delay p99 per process (each point: the interval since the previous sample)',
    },
  ];
  const html = `<!doctype html><html><head><meta charset="utf-8"><style>${css}
    body { font: 14px system-ui, sans-serif; margin: 16px; background: #fff; color: #111 }
    h1 { font-size: 18px; margin: 0 0 8px } h2 { font-size: 15px; margin: 16px 0 4px }
  </style><script>${script}</script></head><body><h1></h1><div id="charts"></div><script>
    const charts = ${JSON.stringify(charts)};
    const colors = ${JSON.stringify(COLORS)};
    const baseline = ${JSON.stringify(baselineMinute)};
    document.querySelector('h1').textContent = ${JSON.stringify(title)};
    for (const chart of charts) {
      const h = document.createElement('h2');
      h.textContent = chart.heading;
      document.getElementById('charts').append(h);
      const box = document.createElement('div');
      document.getElementById('charts').append(box);
      new uPlot({
        width: 1100, height: 330,
        scales: { x: { time: false } },
        legend: { live: false },
        axes: [{ label: 'minutes since the load started' }, { label: chart.label, size: 60 }],
        series: [{ label: 'min' }, ...chart.apps.map((app, i) => ({
          label: app, stroke: colors[i % colors.length], width: 2, spanGaps: true, points: { show: true, size: 5 },
        }))],
        hooks: { draw: [(u) => {
          const x = u.valToPos(baseline, 'x', true);
          u.ctx.save(); u.ctx.strokeStyle = '#888'; u.ctx.setLineDash([6, 4]);
          u.ctx.beginPath(); u.ctx.moveTo(x, u.bbox.top); u.ctx.lineTo(x, u.bbox.top + u.bbox.height); u.ctx.stroke();
          u.ctx.restore();
        }] },
      }, chart.data, box);
    }
    window.drawn = true;
  </script></body></html>`;
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1140, height: 860 } });
    await page.setContent(html);
    await page.waitForFunction(() => (globalThis as { drawn?: boolean }).drawn === true);
    await page.screenshot({ path: file, fullPage: true });
  } finally {
    await browser.close();
  }
}
