/**
 * Injected into every page before it loads: observers for paint, LCP, layout shifts and long
 * tasks, and `__vigilMetrics()` to read them (flushing pending entries first). Plain JavaScript,
 * since it runs in the page.
 */
export const METRICS_SCRIPT = `(() => {
  if (window.__vigilMetrics) return;
  const seen = { fcp: undefined, lcp: undefined, shifts: [], longTasks: [] };
  const observers = [];
  const observe = (type, onEntry) => {
    try {
      const observer = new PerformanceObserver((list) => list.getEntries().forEach(onEntry));
      observer.observe({ type, buffered: true });
      observers.push([observer, onEntry]);
    } catch (e) {}
  };
  observe('paint', (e) => { if (e.name === 'first-contentful-paint') seen.fcp = e.startTime; });
  observe('largest-contentful-paint', (e) => { seen.lcp = e.renderTime || e.loadTime || e.startTime; });
  observe('layout-shift', (e) => { if (!e.hadRecentInput) seen.shifts.push([e.startTime, e.value]); });
  observe('longtask', (e) => seen.longTasks.push([e.startTime, e.duration]));
  Object.defineProperty(window, '__vigilMetrics', {
    enumerable: false,
    value: () => {
      for (const [observer, onEntry] of observers) observer.takeRecords().forEach(onEntry);
      // CLS as web-vitals defines it: the largest session window (gaps < 1 s, at most 5 s long).
      let cls = 0, windowSum = 0, windowStart = -Infinity, last = -Infinity;
      for (const [time, value] of seen.shifts.slice().sort((a, b) => a[0] - b[0])) {
        if (time - last > 1000 || time - windowStart > 5000) { windowSum = 0; windowStart = time; }
        windowSum += value; last = time; cls = Math.max(cls, windowSum);
      }
      const after = seen.fcp === undefined ? 0 : seen.fcp;
      const tbt = seen.longTasks.filter(([start]) => start >= after).reduce((sum, [, d]) => sum + Math.max(0, d - 50), 0);
      const nav = performance.getEntriesByType('navigation')[0];
      return { TTFB: nav ? nav.responseStart : undefined, FCP: seen.fcp, LCP: seen.lcp, CLS: cls, TBT: tbt };
    },
  });
})();`;

export interface PageMetrics {
  TTFB?: number;
  FCP?: number;
  LCP?: number;
  CLS?: number;
  TBT?: number;
}
